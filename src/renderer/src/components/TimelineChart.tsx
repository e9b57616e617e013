// Entries over time for the whole chain (filtered by provider/model). The brush zooms and pans; the
// range it selects drives the charts and the table. Flagged rows are marked, and replayed ones by what
// their replay came to (issue 37); a mark selects its row.
import { useEffect, useMemo, useRef, useState } from 'react'
import {
  Bar,
  Brush,
  CartesianGrid,
  ComposedChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
  type ScatterShapeProps,
  type TooltipContentProps,
} from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import type { TimeRange } from '../lib/filter-state'
import {
  bucketIndexOf,
  indicesOfRange,
  rangeOfIndices,
  timelineRows,
  totalCount,
  type BucketRow,
  type Mark,
  type RecoveredMark,
} from '../lib/chart-data'
import { axisModeFor, axisTime, formatCount } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'
import { zoneLabel } from '../lib/time-zone'
import {
  countKinds,
  REPLAY_KIND_LABELS,
  worstKind,
  type ReplayMark,
  type ReplayMarkKind,
} from '../lib/replay-marks'
import './charts.css'
import './timeline.css'

interface Props {
  timeline: Timeline | null
  error: string | null
  marks: Mark[]
  range: TimeRange | null
  onRange: (r: TimeRange | null) => void
  selected: { seq: number; ns: string | null } | null
  rotations: { seq: number; ns: string }[]
  onSelectSeq: (seq: number, ns: string | null) => void
  /** Recovered rows (deleted or earlier versions), drawn as dots on the axis. */
  recovered?: RecoveredMark[]
  onSelectRecovered?: (key: string) => void
  /** Replayed entries (the session's checks), drawn above their bars. */
  replays?: ReplayMark[]
}

const BRUSH_DEBOUNCE_MS = 200
const NO_RECOVERED: RecoveredMark[] = []
const NO_REPLAYS: ReplayMark[] = []

function rowOf(p: unknown): BucketRow | null {
  return p && typeof p === 'object' && 'i' in p && 'marks' in p ? (p as BucketRow) : null
}

function TimelineTip({ active, payload }: TooltipContentProps) {
  if (!active || !payload || payload.length === 0) return null
  const row = rowOf(payload[0]?.payload)
  if (!row) return null
  return (
    <div className="chart-tip">
      <div className="mono">
        {axisTime(row.t, 'year')} – {axisTime(row.tEnd, 'time')} {zoneLabel(row.t)}
      </div>
      <div>
        <b>{formatCount(row.count)}</b> entries
      </div>
      {row.marks.slice(0, 6).map((m) => (
        <div key={m.seq} className={m.severity === 'verify' ? 'bad-text' : 'warn-text'}>
          seq {m.seq}: {m.kinds.join(', ')}
        </div>
      ))}
      {row.marks.length > 6 ? <div className="muted">+{row.marks.length - 6} more flagged</div> : null}
      {row.recovered.slice(0, 6).map((m) => (
        <div key={m.key} className="rec-text">
          recovered seq {m.seq ?? '?'}: {m.status}, {m.proven ? 'proven' : 'unproven'}
        </div>
      ))}
      {row.recovered.length > 6 ? (
        <div className="muted">+{row.recovered.length - 6} more recovered</div>
      ) : null}
      {row.replays.slice(0, 6).map((m) => (
        <div
          key={`p${m.seq}`}
          className={
            m.kind === 'matched'
              ? 'ok-text'
              : m.kind === 'mismatch'
                ? 'bad-text'
                : m.kind === 'unverified'
                  ? 'muted'
                  : 'warn-text'
          }
        >
          seq {m.seq}: {REPLAY_KIND_LABELS[m.kind]}
        </div>
      ))}
      {row.replays.length > 6 ? <div className="muted">+{row.replays.length - 6} more replayed</div> : null}
    </div>
  )
}

export function TimelineChart({
  timeline,
  error,
  marks,
  range,
  onRange,
  selected,
  rotations,
  onSelectSeq,
  recovered = NO_RECOVERED,
  onSelectRecovered,
  replays = NO_REPLAYS,
}: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const rows = useMemo(
    () => timelineRows(timeline, marks, recovered, replays),
    [timeline, marks, recovered, replays],
  )
  const replayCounts = useMemo(() => countKinds(replays), [replays])
  const [brush, setBrush] = useState<{ start: number; end: number }>({ start: 0, end: 0 })
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)

  // Follow the range chosen elsewhere (reset, a new timeline after a filter change).
  // A pending brush update is dropped: the range just set wins (e.g. Esc during a drag's debounce).
  useEffect(() => {
    if (timer.current) {
      clearTimeout(timer.current)
      timer.current = null
    }
    if (timeline) setBrush(indicesOfRange(timeline, range))
  }, [timeline, range])

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )

  if (error) {
    return (
      <div className="chart-empty error-line" data-testid="timeline-error">
        {error}
      </div>
    )
  }
  if (!timeline) return <div className="chart-empty muted">loading timeline…</div>
  if (rows.length === 0)
    return (
      <div className="chart-empty muted" data-testid="timeline-empty">
        no timestamps to chart
      </div>
    )

  const mode = axisModeFor(rows.length > 1 ? rows[rows.length - 1]!.tEnd - rows[0]!.t : 0)
  const tick = (i: number): string => axisTime(rows[i]?.t ?? Number.NaN, mode)
  const selIndex = selected?.ns ? bucketIndexOf(timeline, selected.ns) : -1
  const markShape = (p: ScatterShapeProps) => {
    const row = rowOf(p.payload)
    if (!row || row.marks.length === 0 || p.cx === undefined || p.cy === undefined) return <g />
    const sev = row.marks.some((m) => m.severity === 'verify') ? 'verify' : 'integrity'
    const first = row.marks[0]!
    const { cx, cy } = p
    return (
      <g
        className={`mark ${sev}`}
        data-testid="timeline-mark"
        data-seq={first.seq}
        role="button"
        aria-label={`flagged seq ${first.seq}: ${first.kinds.join(', ')}`}
        onClick={(e) => {
          e.stopPropagation()
          onSelectSeq(first.seq, first.ns)
        }}
      >
        <path d={`M${cx},${cy - 9} l6,-9 h-12 z`} />
        <line x1={cx} x2={cx} y1={cy - 9} y2={cy} />
      </g>
    )
  }

  const recoveredShape = (p: ScatterShapeProps) => {
    const row = rowOf(p.payload)
    if (!row || row.recovered.length === 0 || p.cx === undefined || p.cy === undefined) return <g />
    const first = row.recovered[0]!
    const proven = row.recovered.some((m) => m.proven)
    return (
      <g
        className={`rmark ${proven ? 'proven' : 'unproven'}`}
        data-testid="timeline-recovered-mark"
        data-seq={first.seq ?? ''}
        data-count={row.recovered.length}
        role="button"
        aria-label={`recovered seq ${first.seq ?? '?'}: ${first.status}${row.recovered.length > 1 ? ` and ${row.recovered.length - 1} more` : ''}`}
        onClick={(e) => {
          e.stopPropagation()
          onSelectRecovered?.(first.key)
        }}
      >
        <circle cx={p.cx} cy={p.cy - 6} r={5} />
      </g>
    )
  }

  const replayShape = (p: ScatterShapeProps) => {
    const row = rowOf(p.payload)
    const kind = row ? worstKind(row.replays) : null
    if (!row || kind === null || p.cx === undefined || p.cy === undefined) return <g />
    const first = row.replays.find((m) => m.kind === kind)!
    // Above the flag glyph when the bucket has one, else just above the bar.
    const cx = p.cx
    const cy = p.cy - (row.marks.length > 0 ? 26 : 9)
    const more = row.replays.length > 1 ? ` and ${row.replays.length - 1} more replayed` : ''
    return (
      <g
        className={`pmark ${kind}`}
        data-testid="timeline-replay-mark"
        data-seq={first.seq}
        data-kind={kind}
        data-count={row.replays.length}
        role="button"
        aria-label={`seq ${first.seq}: ${REPLAY_KIND_LABELS[kind]}${more}`}
        onClick={(e) => {
          e.stopPropagation()
          onSelectSeq(first.seq, first.ns)
        }}
      >
        {kind === 'mismatch' ? (
          <rect x={cx - 5} y={cy - 5} width={10} height={10} />
        ) : (
          <path d={`M${cx},${cy - 6} l6,6 l-6,6 l-6,-6 z`} />
        )}
      </g>
    )
  }

  return (
    <div className="timeline" data-testid="timeline">
      <div className="chart-title">
        <span>Entries over time</span>
        <span className="muted small">
          <span data-testid="timeline-total">{formatCount(totalCount(timeline))}</span> entries ·{' '}
          {rows.length} buckets · {marks.length > 0 ? `${marks.length} flagged` : 'no flags'}
          {recovered.length > 0 ? ` · ${recovered.length} recovered` : ''}
          {replays.length > 0 ? ` · ${replays.length} replayed` : ''}
        </span>
      </div>
      <TimelineLegend recovered={recovered.length > 0} replays={replays.length > 0 ? replayCounts : null} />
      <ResponsiveContainer width="100%" height={190}>
        <ComposedChart
          data={rows}
          margin={{ top: replays.length > 0 ? 36 : 20, right: 12, bottom: 0, left: 0 }}
          barCategoryGap={1}
        >
          <CartesianGrid vertical={false} className="grid-lines" />
          <XAxis dataKey="i" tickFormatter={tick} minTickGap={48} tickLine={false} className="axis" />
          <YAxis allowDecimals={false} width={40} tickLine={false} axisLine={false} className="axis" />
          <Tooltip content={TimelineTip} cursor={{ className: 'tip-cursor' }} isAnimationActive={false} />
          <Bar dataKey="count" className="bar-count" isAnimationActive={false} />
          <Scatter dataKey="mark" shape={markShape} isAnimationActive={false} />
          <Scatter dataKey="rmark" shape={recoveredShape} isAnimationActive={false} />
          {replays.length > 0 ? (
            <Scatter dataKey="pmark" shape={replayShape} isAnimationActive={false} />
          ) : null}
          {rotations.map((r) => {
            const i = bucketIndexOf(timeline, r.ns)
            return i < 0 ? null : (
              <ReferenceLine
                key={r.seq}
                x={i}
                className="ref-rotation"
                strokeDasharray="4 3"
                label={{ value: `key → seq ${r.seq}`, position: 'insideTopLeft', className: 'ref-label' }}
              />
            )
          })}
          {selIndex >= 0 ? <ReferenceLine x={selIndex} className="ref-selected" /> : null}
          <Brush
            dataKey="i"
            height={24}
            travellerWidth={8}
            startIndex={brush.start}
            endIndex={brush.end}
            tickFormatter={tick}
            className="brush"
            onChange={(r) => {
              const s = r.startIndex ?? 0
              const e = r.endIndex ?? rows.length - 1
              setBrush({ start: s, end: e })
              if (timer.current) clearTimeout(timer.current)
              timer.current = setTimeout(() => onRange(rangeOfIndices(timeline, s, e)), BRUSH_DEBOUNCE_MS)
            }}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  )
}

/** The legend's glyph of a replay mark (the shapes the chart draws). */
function ReplayGlyph({ kind }: { kind: ReplayMarkKind }) {
  return (
    <svg width="12" height="12" aria-hidden className={`pmark ${kind}`}>
      {kind === 'mismatch' ? (
        <rect x="1" y="1" width="10" height="10" />
      ) : (
        <path d="M6,0 l6,6 l-6,6 l-6,-6 z" />
      )}
    </svg>
  )
}

/** What the glyphs on the timeline mean (and, once entries are replayed, how many of each kind). */
function TimelineLegend({
  recovered,
  replays,
}: {
  recovered: boolean
  replays: Record<ReplayMarkKind, number> | null
}) {
  return (
    <div className="timeline-legend small muted" data-testid="timeline-legend">
      <span className="legend-item">
        <svg width="12" height="10" aria-hidden className="mark verify">
          <path d="M6,10 l6,-10 h-12 z" />
        </svg>
        verify finding
      </span>
      <span className="legend-item">
        <svg width="12" height="10" aria-hidden className="mark">
          <path d="M6,10 l6,-10 h-12 z" />
        </svg>
        integrity anomaly
      </span>
      <span className={`legend-item${recovered ? '' : ' off'}`}>
        <svg width="12" height="12" aria-hidden className="rmark proven">
          <circle cx="6" cy="6" r="5" />
        </svg>
        recovered row (proven)
      </span>
      <span className={`legend-item${recovered ? '' : ' off'}`}>
        <svg width="12" height="12" aria-hidden className="rmark unproven">
          <circle cx="6" cy="6" r="5" />
        </svg>
        recovered (unproven)
      </span>
      {replays
        ? (['matched', 'mismatch', 'drift', 'unverified'] as const).map((k) => (
            <span key={k} className="legend-item" data-testid={`legend-replay-${k}`} data-count={replays[k]}>
              <ReplayGlyph kind={k} />
              {REPLAY_KIND_LABELS[k]} <span className="legend-count">({formatCount(replays[k])})</span>
            </span>
          ))
        : null}
    </div>
  )
}
