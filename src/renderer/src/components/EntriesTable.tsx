// The chain's rows, virtualized: pages fetched on demand (listEntries) through a page cache, sorted
// by seq or time, filtered like the timeline. A replay file dropped on a row checks that row.
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
} from 'react'
import type { EntryFilter, EntrySort, EntrySummary } from '../../../shared/chain-types'
import { useApi } from '../app/api-context'
import { errorMessage, formatCount, shortHash, shortTime } from '../lib/format'
import { PageCache } from '../lib/page-cache'
import { looksLikeChain } from '../lib/replay-format'
import { VirtualList, type VirtualListHandle } from './VirtualList'
import { useTimeZone } from '../lib/stores/settings-store'
import './EntriesTable.css'

export const ROW_HEIGHT = 26

interface Props {
  /** Changes whenever the listing must be fetched again (filter, sort, flags, chain). */
  listingKey: string
  filter: EntryFilter | undefined
  sort: EntrySort
  onSortBy: (column: 'seq' | 'time') => void
  selectedSeq: number | null
  onSelect: (row: EntrySummary) => void
  /** Select a seq that is not in the listing (go-to of a filtered-out row). */
  onSelectSeq?: (seq: number) => void
  isFlagged: (seq: number) => string | null
  replayStatus: (seq: number) => 'match' | 'mismatch' | null
  onReplayDrop: (seq: number, file: File) => void
  description: string
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
  selectedSeq,
  onSelect,
  isFlagged,
  replayStatus,
  onReplayDrop,
  description,
}: Props) {
  const zone = useTimeZone() // drawn again when the zone times are shown in changes
  const api = useApi()
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
  const count = cache.total ?? 0

  // A new listing starts at the top, with the first page loading.
  useEffect(() => {
    setActive(-1)
    cache.want(0, 60)
  }, [cache])

  const onRangeChange = useCallback((s: number, e: number) => cache.want(s, e), [cache])

  // Follow a selection made elsewhere (timeline mark, finding, prev/next): find its row and scroll.
  const activeRow = active >= 0 ? cache.get(active) : undefined
  const activeSeq = activeRow?.seq ?? null
  useEffect(() => {
    if (selectedSeq === null || selectedSeq === activeSeq) return
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
        setActive(index)
        cache.want(index - 20, index + 20)
        listRef.current?.scrollTo(index, 'center')
      })
      .catch((e: unknown) => {
        if (!cancelled) setGotoMsg(errorMessage(e))
      })
    return () => {
      cancelled = true
    }
    // activeSeq is read, not followed: moving the cursor must not re-locate.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, cache, selectedSeq, sort])

  const open = useCallback(
    (i: number) => {
      void cache.load(i).then((row) => {
        if (row) onSelect(row)
      })
    },
    [cache, onSelect],
  )

  const goto = (e: FormEvent): void => {
    e.preventDefault()
    const t = gotoText.trim()
    if (!/^\d+$/.test(t)) {
      setGotoMsg('type a seq number')
      return
    }
    const seq = Number(t)
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
        setActive(index)
        listRef.current?.scrollTo(index, 'center')
        void cache.load(index).then((row) => {
          if (row) onSelect(row)
        })
        listRef.current?.focus()
      })
      .catch((err: unknown) => setGotoMsg(errorMessage(err)))
  }

  const arrow = (col: 'seq' | 'time'): string =>
    sort.startsWith(col) ? (sort.endsWith('asc') ? ' ▲' : ' ▼') : ''

  const renderRow = (i: number, style: CSSProperties, isActive: boolean) => {
    const r = cache.get(i)
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
        onClick={() => {
          setActive(i)
          onSelect(r)
        }}
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
        <span className="c-seq mono" role="gridcell">
          {r.seq}
        </span>
        <span className="c-time mono" title={r.time} role="gridcell">
          {shortTime(r.time)}
        </span>
        <span className="c-provider" role="gridcell">
          {r.provider}
        </span>
        <span className="c-model" title={r.model ?? ''} role="gridcell">
          {r.model ?? <span className="muted">—</span>}
        </span>
        <span className="c-span" title={r.span_name} role="gridcell">
          {r.span_name}
        </span>
        <span className="c-hash mono muted" title={r.canonical_hash} role="gridcell">
          {shortHash(r.canonical_hash, 10)}
        </span>
        <span className="c-flags" role="gridcell">
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

  const ariaSort = (col: 'seq' | 'time'): 'ascending' | 'descending' | undefined =>
    sort.startsWith(col) ? (sort.endsWith('asc') ? 'ascending' : 'descending') : undefined
  // The grid's first row: its column headers (the sortable ones are buttons inside them).
  const header = (
    <div className="thead" role="row" aria-rowindex={1}>
      <span className="c-seq" role="columnheader" aria-sort={ariaSort('seq')}>
        <button type="button" className="th sortable" onClick={() => onSortBy('seq')} data-testid="sort-seq">
          seq{arrow('seq')}
        </button>
      </span>
      <span className="c-time" role="columnheader" aria-sort={ariaSort('time')}>
        <button
          type="button"
          className="th sortable"
          onClick={() => onSortBy('time')}
          data-testid="sort-time"
        >
          time ({zone === 'utc' ? 'UTC' : 'local'}){arrow('time')}
        </button>
      </span>
      <span className="c-provider th" role="columnheader">
        provider
      </span>
      <span className="c-model th" role="columnheader">
        model
      </span>
      <span className="c-span th" role="columnheader">
        span
      </span>
      <span className="c-hash th" role="columnheader">
        canonical hash
      </span>
      <span className="c-flags th" role="columnheader">
        <span className="sr-only">flags</span>
      </span>
    </div>
  )

  return (
    <div className="entries" data-testid="entries">
      <div className="entries-toolbar">
        <span className="muted small" data-testid="entries-count">
          {cache.total === null ? 'loading…' : `${formatCount(count)} row${count === 1 ? '' : 's'}`} ·{' '}
          {description}
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
      </div>
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
  )
}
