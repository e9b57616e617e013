// The chain's rows, virtualized: pages fetched on demand (listEntries) through a page cache, sorted
// by any column, filtered like the timeline. Columns (./table/columns.tsx) can be resized and hidden;
// a context menu (right-click, Shift+F10, the Menu key) copies cells, rows and hashes and filters by
// a value; Ctrl/⌘+C copies the row under the cursor. A replay file dropped on a row checks that row.
import {
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type CSSProperties,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type MouseEvent,
} from 'react'
import type { EntryFilter, EntrySort, EntrySortColumn, EntrySummary } from '../../../shared/chain-types'
import { useApi } from '../app/api-context'
import { errorMessage, formatCount } from '../lib/format'
import { PageCache } from '../lib/page-cache'
import { looksLikeChain } from '../lib/replay-format'
import { VirtualList, type VirtualListHandle } from './VirtualList'
import { useTimeZone } from '../lib/stores/settings-store'
import './EntriesTable.css'
import { type Column, type ValueFilter } from './table/columns'
import { ColumnMenu } from './table/ColumnMenu'
import { shownColumns, useColumnPrefs, widthOf, withWidth } from './table/column-prefs'
import { copyWithNotice, menuItems, wholeRowFrom, type Notify } from './table/row-actions'
import { isClipped, rowTsv } from './table/columns'
import { RowMenu } from './table/RowMenu'
import { gridTemplate, TableHeader } from './table/TableHeader'
import { useGapRows, type GapRowsModel } from './GapRow'

/** A clipped cell's tooltip ends with why (EntrySummary.clipped). */
const CLIPPED_TIP = ' … (clipped here; the entry’s detail shows it whole)'

export const ROW_HEIGHT = 26

interface Props {
  /** Changes whenever the listing must be fetched again (filter, sort, flags, chain). */
  listingKey: string
  filter: EntryFilter | undefined
  sort: EntrySort
  onSortBy: (column: EntrySortColumn) => void
  /** "Filter by this value" from the context menu. */
  onFilterBy?: (filter: ValueFilter, value: string) => void
  /** The app's notice (a copy's confirmation). */
  onNotify?: Notify
  selectedSeq: number | null
  onSelect: (row: EntrySummary) => void
  /** Select a seq that is not in the listing (go-to of a filtered-out row). */
  onSelectSeq?: (seq: number) => void
  isFlagged: (seq: number) => string | null
  replayStatus: (seq: number) => 'match' | 'mismatch' | null
  onReplayDrop: (seq: number, file: File) => void
  description: string
  /** Gap rows among the live ones (issue 35): given for a seq-ordered listing nothing filters. */
  gapRows?: GapRowsModel | null
}

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files')
}

export function EntriesTable({
  listingKey,
  onSelectSeq,
  filter,
  sort,
  onSortBy,
  onFilterBy,
  onNotify,
  selectedSeq,
  onSelect,
  isFlagged,
  replayStatus,
  onReplayDrop,
  description,
  gapRows,
}: Props) {
  const zone = useTimeZone() // drawn again when the zone times are shown in changes
  const api = useApi()
  const whole = useMemo(() => wholeRowFrom(api), [api])
  const gridId = useId()
  const rowId = useCallback((i: number) => `${gridId}-row-${i}`, [gridId])
  const listRef = useRef<VirtualListHandle | null>(null)
  const filterRef = useRef(filter)
  filterRef.current = filter
  const cache = useMemo(
    () =>
      new PageCache<EntrySummary>(
        async (offset, limit) => {
          const p = await api.listEntries({
            offset,
            limit,
            sort,
            ...(filterRef.current ? { filter: filterRef.current } : {}),
          })
          return { total: p.total, rows: p.rows }
        },
        { pageSize: 200, maxPages: 60, concurrency: 2 },
      ),
    // The key carries sort and filter.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, listingKey],
  )
  useEffect(() => () => cache.dispose(), [cache])
  useSyncExternalStore(
    useCallback((l: () => void) => cache.subscribe(l), [cache]),
    () => cache.version,
  )
  const [active, setActive] = useState(-1)
  const [dropRow, setDropRow] = useState<number | null>(null)
  const [gotoText, setGotoText] = useState('')
  const [gotoMsg, setGotoMsg] = useState<string | null>(null)
  // Display rows: the live rows, with the gap rows among them (identity without gap rows).
  const rows = useGapRows(gapRows, cache.total, sort)
  const count = rows.count
  const [prefs, setPrefs] = useColumnPrefs()
  // Every column not hidden is in the table, whatever the window's width: a narrow pane scrolls
  // sideways with seq and the flags kept in view (table.css), as DB Browser and Wireshark do, and
  // no column is left out of sight of a search, a sort or a screen reader for want of room.
  const shown = useMemo(() => shownColumns(prefs), [prefs])
  const widths = useMemo(() => shown.map((c) => widthOf(prefs, c)), [shown, prefs])
  /** The keyboard's column (← →): the cell "Copy cell" copies when the menu is opened from the keyboard. */
  const [activeCol, setActiveCol] = useState(0)
  const col = Math.min(activeCol, shown.length - 1)
  const [menu, setMenu] = useState<{ x: number; y: number; row: EntrySummary; cell: Column } | null>(null)
  const notify: Notify = useMemo(() => onNotify ?? (() => undefined), [onNotify])
  const closeMenu = useCallback(() => {
    setMenu(null)
    listRef.current?.focus()
  }, [])

  // A new listing starts at the top, with the first page loading.
  useEffect(() => {
    setActive(-1)
    cache.want(0, 60)
  }, [cache])

  const onRangeChange = useCallback(
    // `e` is past the window's last display row: the live rows up to and with that row's.
    (s: number, e: number) => cache.want(rows.liveNear(s), rows.liveNear(e - 1) + 1),
    [cache, rows],
  )

  // Follow a selection made elsewhere (timeline mark, finding, prev/next): find its row and scroll.
  const activeShown = rows.row(active)
  const activeRow = activeShown?.kind === 'live' ? cache.get(activeShown.index) : undefined
  const activeSeq =
    activeShown?.kind === 'gap'
      ? selectedSeq !== null && selectedSeq >= activeShown.span.from && selectedSeq <= activeShown.span.to
        ? selectedSeq
        : null
      : (activeRow?.seq ?? null)
  useEffect(() => {
    if (selectedSeq === null || selectedSeq === activeSeq) return
    // A seq no live row holds: its gap row.
    const gap = rows.gapOf(selectedSeq)
    if (gap) {
      setGotoMsg(null)
      setActive(gap.row)
      listRef.current?.scrollTo(gap.row, 'center')
      return
    }
    let cancelled = false
    void api
      .locateEntry({ seq: selectedSeq, sort, ...(filterRef.current ? { filter: filterRef.current } : {}) })
      .then(({ index }) => {
        if (cancelled) return
        if (index === null) {
          setGotoMsg(`seq ${selectedSeq} is not in this listing`)
          return
        }
        setGotoMsg(null)
        setActive(rows.displayOf(index))
        cache.want(index - 20, index + 20)
        listRef.current?.scrollTo(rows.displayOf(index), 'center')
      })
      .catch((e: unknown) => {
        if (!cancelled) setGotoMsg(errorMessage(e))
      })
    return () => {
      cancelled = true
    }
    // activeSeq is read, not followed: moving the cursor must not re-locate.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, cache, selectedSeq, sort, rows])

  const open = useCallback(
    (i: number) => {
      const r = rows.row(i)
      if (r?.kind === 'gap') return gapRows?.onOpen(r.span)
      void cache.load(r?.kind === 'live' ? r.index : i).then((row) => {
        if (row) onSelect(row)
      })
    },
    [cache, onSelect, rows, gapRows],
  )

  const goto = (e: FormEvent): void => {
    e.preventDefault()
    const t = gotoText.trim()
    if (!/^\d+$/.test(t)) {
      setGotoMsg('type a seq number')
      return
    }
    const seq = Number(t)
    if (rows.gapOf(seq)) {
      // A seq no live row holds: its gap row, and what is known of it.
      setGotoMsg(null)
      onSelectSeq?.(seq)
      listRef.current?.focus()
      return
    }
    void api
      .locateEntry({ seq, sort, ...(filterRef.current ? { filter: filterRef.current } : {}) })
      .then(({ index }) => {
        if (index === null) {
          // Filtered out (or absent): say so, and still show it in the entry panel.
          setGotoMsg(`seq ${seq} is not in this listing`)
          onSelectSeq?.(seq)
          return
        }
        setGotoMsg(null)
        setActive(rows.displayOf(index))
        listRef.current?.scrollTo(rows.displayOf(index), 'center')
        void cache.load(index).then((row) => {
          if (row) onSelect(row)
        })
        listRef.current?.focus()
      })
      .catch((err: unknown) => setGotoMsg(errorMessage(err)))
  }

  const openMenu = (row: EntrySummary, cell: Column, x: number, y: number): void =>
    setMenu({ x, y, row, cell })

  const onRowContextMenu = (e: MouseEvent, i: number, r: EntrySummary): void => {
    e.preventDefault()
    const id = (e.target as HTMLElement).closest<HTMLElement>('[data-col]')?.dataset['col']
    const at = shown.findIndex((c) => c.id === id)
    if (at >= 0) setActiveCol(at)
    setActive(i)
    openMenu(r, shown[at >= 0 ? at : col]!, e.clientX, e.clientY)
  }

  // The grid's own keys beyond moving the row cursor: ← → the column, the menu, Ctrl/⌘+C.
  const onGridKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    // The cursor's live row (a gap row has no cells to copy).
    const r = activeRow
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      if (e.altKey || e.ctrlKey || e.metaKey) return
      e.preventDefault()
      setActiveCol(Math.max(0, Math.min(shown.length - 1, col + (e.key === 'ArrowLeft' ? -1 : 1))))
      return
    }
    if ((e.key === 'F10' && e.shiftKey) || e.key === 'ContextMenu') {
      e.preventDefault()
      if (!r) return
      const box = document.getElementById(rowId(active))?.getBoundingClientRect()
      openMenu(r, shown[col]!, (box?.left ?? 0) + 24, (box?.bottom ?? 0) + 2)
      return
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'c') {
      if (!r || (window.getSelection()?.toString() ?? '') !== '') return
      e.preventDefault()
      copyWithNotice(
        whole(r).then((w) => rowTsv(w, shown)),
        `row seq ${r.seq} (TSV)`,
        notify,
      )
    }
  }

  const renderRow = (i: number, style: CSSProperties, isActive: boolean) => {
    const shownRow = rows.row(i)
    if (shownRow?.kind === 'gap' && gapRows)
      return gapRows.render(shownRow.span, {
        key: i,
        id: rowId(i),
        style,
        rowIndex: i + 2,
        active: isActive,
        selected:
          selectedSeq !== null && selectedSeq >= shownRow.span.from && selectedSeq <= shownRow.span.to,
      })
    const r = cache.get(shownRow?.kind === 'live' ? shownRow.index : i)
    if (!r) {
      return (
        <div key={i} id={rowId(i)} className="trow loading" style={style} role="row" aria-rowindex={i + 2}>
          <span className="c-seq muted" role="gridcell">
            …
          </span>
        </div>
      )
    }
    const flag = isFlagged(r.seq)
    const rs = replayStatus(r.seq)
    const selected = r.seq === selectedSeq
    return (
      <div
        key={i}
        className={`trow${isActive ? ' active' : ''}${selected ? ' selected' : ''}${flag ? ' flagged' : ''}${dropRow === i ? ' drop' : ''}`}
        style={style}
        role="row"
        id={rowId(i)}
        aria-rowindex={i + 2}
        aria-selected={selected}
        data-testid="entry-row"
        data-seq={r.seq}
        onClick={(e) => {
          const id = (e.target as HTMLElement).closest<HTMLElement>('[data-col]')?.dataset['col']
          const at = shown.findIndex((c) => c.id === id)
          if (at >= 0) setActiveCol(at)
          setActive(i)
          onSelect(r)
        }}
        onContextMenu={(e) => onRowContextMenu(e, i, r)}
        onDragOver={(e) => {
          if (!hasFiles(e)) return
          e.preventDefault()
          e.stopPropagation()
          e.dataTransfer.dropEffect = 'copy'
          if (dropRow !== i) setDropRow(i)
        }}
        onDragLeave={() => setDropRow((d) => (d === i ? null : d))}
        onDrop={(e) => {
          const file = e.dataTransfer?.files?.[0]
          setDropRow(null)
          // A chain file is for the window's handler (it opens it), not a replay to check.
          if (!file || looksLikeChain(file.name)) return
          e.preventDefault()
          e.stopPropagation()
          setActive(i)
          onSelect(r)
          onReplayDrop(r.seq, file)
        }}
      >
        {shown.map((c, k) => {
          const text = c.copy(r)
          // A value the listing carried clipped says so: an ellipsis, and the tooltip why.
          const clipped = isClipped(c, r)
          const shownValue = c.render ? c.render(r) : clipped ? `${text}…` : text
          const empty = shownValue === undefined || shownValue === ''
          return (
            <span
              key={c.id}
              className={`cell c-${c.id}${c.numeric ? ' num mono' : ''}${isActive && k === col ? ' cell-active' : ''}`}
              title={`${c.tip ? c.tip(r) : text}${clipped ? CLIPPED_TIP : ''}`}
              role="gridcell"
              data-col={c.id}
            >
              {empty ? <span className="muted">—</span> : shownValue}
            </span>
          )
        })}
        <span className="cell c-flags" role="gridcell">
          {r.has_replay ? (
            <span
              className={`tag ${rs ?? ''}`}
              title={rs ? `replay ${rs}` : 'replay metadata recorded: drop a replay file here'}
            >
              {rs === 'match' ? '✓ replay' : rs === 'mismatch' ? '✗ replay' : 'replay'}
            </span>
          ) : null}
          {flag ? (
            <span className="tag flag" title={flag}>
              ⚑
            </span>
          ) : null}
        </span>
      </div>
    )
  }

  const header = (
    <TableHeader
      columns={shown}
      widths={widths}
      sort={sort}
      zoneLabel={zone === 'utc' ? 'UTC' : 'local'}
      onSortBy={onSortBy}
      onResize={(id, w) => setPrefs(withWidth(prefs, id, w))}
    />
  )

  return (
    <div
      className="entries"
      data-testid="entries"
      style={{ '--cols': gridTemplate(widths) } as CSSProperties}
    >
      <div className="entries-toolbar">
        <span className="muted small" data-testid="entries-count">
          {cache.total === null
            ? 'loading…'
            : `${formatCount(cache.total)} row${cache.total === 1 ? '' : 's'}`}{' '}
          · {description}
        </span>
        {cache.error ? <span className="error-line small">{cache.error}</span> : null}
        <div className="grow" />
        <form onSubmit={goto} className="row gap-s">
          <input
            className="input num"
            placeholder="go to seq"
            value={gotoText}
            onChange={(e) => setGotoText(e.target.value)}
            aria-label="go to seq"
            data-testid="goto-seq"
            inputMode="numeric"
          />
          <button type="submit" className="btn small">
            Go
          </button>
        </form>
        {gotoMsg ? (
          <span className="warn-text small" data-testid="goto-msg">
            {gotoMsg}
          </span>
        ) : null}
        <ColumnMenu prefs={prefs} onChange={setPrefs} />
      </div>
      <div className="entries-grid" onKeyDown={onGridKey}>
        <VirtualList
          ref={listRef}
          count={count}
          rowHeight={ROW_HEIGHT}
          activeIndex={active}
          onActiveChange={setActive}
          onEnter={open}
          onRangeChange={onRangeChange}
          renderRow={renderRow}
          ariaLabel="chain entries"
          header={header}
          headerHeight={ROW_HEIGHT}
          rowId={rowId}
          testId="entries-list"
        />
      </div>
      {menu ? (
        <RowMenu
          x={menu.x}
          y={menu.y}
          label={`seq ${menu.row.seq}`}
          items={menuItems(menu.row, menu.cell, shown, notify, (f, v) => onFilterBy?.(f, v), whole)}
          onClose={closeMenu}
        />
      ) : null}
    </div>
  )
}
