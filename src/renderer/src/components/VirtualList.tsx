// A fixed-row-height windowed list: only the rows in view (plus a little overscan) are in the DOM,
// whatever the row count. Keyboard: ↑ ↓ PgUp PgDn Home End move the cursor, Enter opens it.
// It is an ARIA grid (WAI-ARIA 1.2 §grid): the header row sits inside it (sticky), aria-rowcount
// counts every row of the listing, not just those in the DOM, and the cursor's row is the grid's
// aria-activedescendant while it is rendered, so a screen reader follows the keyboard.
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from 'react'
import {
  isNavKey,
  navigate,
  pageRows,
  scrollToIndex,
  visibleWindow,
  type ListGeometry,
} from '../lib/windowing'
import './VirtualList.css'

export interface VirtualListHandle {
  scrollTo: (index: number, align?: 'nearest' | 'center') => void
  focus: () => void
}

interface Props {
  count: number
  rowHeight: number
  overscan?: number
  /** The keyboard cursor (-1: none). */
  activeIndex: number
  onActiveChange: (index: number) => void
  onEnter?: (index: number) => void
  /** Called with the rows that should be loaded whenever the window moves. */
  onRangeChange?: (start: number, end: number) => void
  renderRow: (index: number, style: CSSProperties, active: boolean) => ReactNode
  /** The viewport height assumed until the list is first measured (where nothing lays it out: jsdom). */
  initialViewportHeight?: number
  ariaLabel: string
  /** The grid's header row (role="row" with columnheaders), kept at the top while scrolling. */
  header?: ReactNode
  /** Its height in px (the rows' viewport is the list's height less this). */
  headerHeight?: number
  /** The DOM id of row `index`, for aria-activedescendant. */
  rowId?: (index: number) => string
  testId?: string
  ref?: Ref<VirtualListHandle>
}

export function VirtualList({
  count,
  rowHeight,
  overscan = 6,
  activeIndex,
  onActiveChange,
  onEnter,
  onRangeChange,
  renderRow,
  initialViewportHeight = 400,
  ariaLabel,
  header,
  headerHeight = 0,
  rowId,
  testId,
  ref,
}: Props) {
  const el = useRef<HTMLDivElement | null>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [viewport, setViewport] = useState(initialViewportHeight)
  const frame = useRef<number | null>(null)
  const geometry: ListGeometry = { count, rowHeight, viewportHeight: viewport }
  const win = visibleWindow(geometry, scrollTop, overscan)

  useLayoutEffect(() => {
    const node = el.current
    if (!node) return
    const measure = (): void => {
      if (node.clientHeight > 0) setViewport(Math.max(rowHeight, node.clientHeight - headerHeight))
    }
    measure()
    if (typeof ResizeObserver === 'undefined') return
    const ro = new ResizeObserver(measure)
    ro.observe(node)
    return () => ro.disconnect()
  }, [rowHeight, headerHeight])

  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current)
    },
    [],
  )

  // The list shrank (new filter): keep the scroll position inside it.
  useEffect(() => {
    const node = el.current
    if (node && node.scrollTop !== scrollTop && Math.abs(node.scrollTop - scrollTop) > 1)
      setScrollTop(node.scrollTop)
  }, [count, scrollTop])

  useEffect(() => {
    onRangeChange?.(win.start, win.end)
  }, [win.start, win.end, onRangeChange])

  const applyScroll = useCallback((top: number): void => {
    const node = el.current
    if (node) node.scrollTop = top
    setScrollTop(top)
  }, [])

  const scrollTo = useCallback(
    (index: number, align: 'nearest' | 'center' = 'nearest'): void => {
      const node = el.current
      const g: ListGeometry = {
        count,
        rowHeight,
        viewportHeight:
          node && node.clientHeight > 0 ? Math.max(rowHeight, node.clientHeight - headerHeight) : viewport,
      }
      const top = scrollToIndex(g, node?.scrollTop ?? scrollTop, index, align)
      if (top !== null) applyScroll(top)
    },
    [count, rowHeight, headerHeight, viewport, scrollTop, applyScroll],
  )

  useImperativeHandle(ref, () => ({ scrollTo, focus: () => el.current?.focus() }), [scrollTo])

  const onScroll = (): void => {
    if (frame.current !== null) return
    frame.current = requestAnimationFrame(() => {
      frame.current = null
      if (el.current) setScrollTop(el.current.scrollTop)
    })
  }

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'Enter') {
      if (activeIndex >= 0) {
        e.preventDefault()
        onEnter?.(activeIndex)
      }
      return
    }
    if (!isNavKey(e.key) || e.altKey || e.metaKey || e.ctrlKey) return
    e.preventDefault()
    const next = navigate(e.key, activeIndex, count, Math.max(1, pageRows(geometry) - 1))
    if (next < 0) return
    onActiveChange(next)
    scrollTo(next)
  }

  const rows: ReactNode[] = []
  for (let i = win.start; i < win.end; i++) {
    rows.push(renderRow(i, { height: rowHeight }, i === activeIndex))
  }

  return (
    <div
      ref={el}
      className="vlist"
      tabIndex={0}
      role="grid"
      aria-label={ariaLabel}
      aria-rowcount={count + (header ? 1 : 0)}
      aria-activedescendant={
        rowId && activeIndex >= win.start && activeIndex < win.end ? rowId(activeIndex) : undefined
      }
      onScroll={onScroll}
      onKeyDown={onKeyDown}
      data-testid={testId}
      data-first-visible={win.firstVisible}
      data-rendered={win.end - win.start}
    >
      {header}
      <div className="vlist-spacer" style={{ height: win.contentHeight }}>
        <div className="vlist-rows" style={{ transform: `translateY(${win.offsetTop}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  )
}
