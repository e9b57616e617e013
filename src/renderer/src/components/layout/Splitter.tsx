// A pane divider the auditor drags (or moves with the arrow keys) to give the table, the sidebar or
// the entry panel more room (issue 35). The size is a CSS variable on the container, kept per
// browser in localStorage; WAI-ARIA "window splitter" pattern (role=separator, focusable, valuenow).
import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
} from 'react'

interface Props {
  /** The CSS variable the container's grid reads (e.g. --sidebar-w). */
  cssVar: string
  /** The element that holds the variable (the grid). */
  target: () => HTMLElement | null
  label: string
  /** The size before the auditor moves it (a function: it may depend on the window's width). */
  initial: number | (() => number)
  min: number
  max: number
  /** +1: dragging right grows the pane (a left pane); -1: dragging right shrinks it (a right pane). */
  direction: 1 | -1
  storageKey: string
  testId: string
}

const STEP = 24

/** The size the auditor set (kept in localStorage), or null: none yet. */
function stored(key: string): number | null {
  try {
    const v = Number(window.localStorage.getItem(key))
    return Number.isFinite(v) && v > 0 ? v : null
  } catch {
    return null
  }
}

/** The window's width, followed while it changes (the size before the auditor moves it depends on it). */
function useWindowWidth(): number {
  const [w, setW] = useState(() => window.innerWidth)
  useEffect(() => {
    const on = (): void => setW(window.innerWidth)
    window.addEventListener('resize', on)
    return () => window.removeEventListener('resize', on)
  }, [])
  return w
}

export function Splitter({ cssVar, target, label, initial, min, max, direction, storageKey, testId }: Props) {
  // Only a size the auditor set is remembered: the default follows the window, so a layout first
  // seen at 1440 px does not squeeze the table when the window is 1024 px (issue 35).
  const [set, setSet] = useState<number | null>(() => stored(storageKey))
  const windowWidth = useWindowWidth()
  const fallback = useMemo(
    () => (typeof initial === 'function' ? initial() : initial),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- recomputed when the window's width changes
    [windowWidth],
  )
  const size = set ?? fallback
  const setSize = useCallback(
    (next: number | ((s: number) => number)) =>
      setSet((s) => (typeof next === 'function' ? next(s ?? fallback) : next)),
    [fallback],
  )
  const drag = useRef<{ x: number; size: number } | null>(null)
  const clamp = useCallback((v: number) => Math.round(Math.min(max, Math.max(min, v))), [min, max])

  useEffect(() => {
    target()?.style.setProperty(cssVar, `${clamp(size)}px`)
    if (set === null) return
    try {
      window.localStorage.setItem(storageKey, String(clamp(set)))
    } catch {
      // private mode: the size is kept for this page only
    }
  }, [size, set, cssVar, target, clamp, storageKey])

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    e.currentTarget.setPointerCapture(e.pointerId)
    drag.current = { x: e.clientX, size }
  }
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    if (!drag.current) return
    setSize(clamp(drag.current.size + direction * (e.clientX - drag.current.x)))
  }
  const onPointerUp = (): void => {
    drag.current = null
  }
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const d = e.key === 'ArrowRight' ? STEP : e.key === 'ArrowLeft' ? -STEP : 0
    if (d !== 0) {
      e.preventDefault()
      setSize((s) => clamp(s + direction * d))
    } else if (e.key === 'Home') {
      e.preventDefault()
      setSize(min)
    } else if (e.key === 'End') {
      e.preventDefault()
      setSize(max)
    }
  }
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={clamp(size)}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onKeyDown={onKeyDown}
      data-testid={testId}
    />
  )
}
