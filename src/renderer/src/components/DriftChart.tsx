// One dimension of one provider/model group over time (F12 payload drift): the bucket mean as a
// line over the bucket's min–max band, and the anomalies the engine found marked on it — an
// anomaly as a filled triangle, a warning as an open diamond (shape and label, not colour alone).
// A mark selects its row.
import { useMemo } from 'react'
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceDot,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from 'recharts'
import type { DriftGroupDimension, DriftSeriesAnomaly } from '../../../shared/drift-types'
import {
  anomalyPoint,
  baselineNote,
  DIMENSION_LABELS,
  driftPoints,
  formatDriftValue,
  type DriftPoint,
} from '../lib/drift'
import { axisModeFor, axisTime, counted, formatCount } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'
import { zoneLabel } from '../lib/time-zone'
import './charts.css'

interface Props {
  dim: DriftGroupDimension
  window: number
  /** Bucket width in ms (the tooltip's span). */
  bucketMs: number
  onSelectSeq: (seq: number) => void
}

/** Marks drawn per chart (the list below the charts has them all). */
const MAX_DRAWN = 200

function compact(v: number): string {
  const a = Math.abs(v)
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`
  if (a >= 1e3) return `${(v / 1e3).toFixed(1)}k`
  if (a > 0 && a < 0.01) return v.toExponential(0)
  return Number.isInteger(v) ? String(v) : v.toFixed(2)
}

function markShape(a: DriftSeriesAnomaly, onSelectSeq: (seq: number) => void) {
  function Shape(props: { cx?: number; cy?: number }) {
    const { cx, cy } = props
    if (cx === undefined || cy === undefined || !Number.isFinite(cx) || !Number.isFinite(cy)) return <g />
    const path =
      a.severity === 'anomaly'
        ? `M${cx},${cy - 5} L${cx + 5},${cy + 4} L${cx - 5},${cy + 4} Z`
        : `M${cx},${cy - 5} L${cx + 5},${cy} L${cx},${cy + 5} L${cx - 5},${cy} Z`
    return (
      <g className={`drift-mark ${a.severity}`} onClick={() => onSelectSeq(a.seq)}>
        <title>{`seq ${a.seq}: ${a.severity}, ${formatDriftValue(a.value, a.dimension)}`}</title>
        <path d={path} />
      </g>
    )
  }
  return Shape
}

export function DriftChart({ dim, window, bucketMs, onSelectSeq }: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const rows = useMemo(() => driftPoints(dim), [dim])
  const note = baselineNote(dim, window)
  const label = DIMENSION_LABELS[dim.dimension]
  const n = dim.anomalies.length
  const from = rows[0]?.t ?? 0
  const to = (rows[rows.length - 1]?.t ?? 0) + bucketMs
  const mode = axisModeFor(to - from)

  function Tip({ active, payload }: TooltipContentProps) {
    const row = payload?.[0]?.payload as DriftPoint | undefined
    if (!active || !row) return null
    return (
      <div className="chart-tip">
        <div className="mono">
          {axisTime(row.t, 'year')} {zoneLabel(row.t)}
        </div>
        {row.count === 0 ? (
          <div className="muted">no values</div>
        ) : (
          <>
            <div>
              mean <b>{formatDriftValue(row.mean, dim.dimension)}</b> ({counted(row.count, 'value')})
            </div>
            {row.band ? (
              <div className="muted">
                min {formatDriftValue(row.band[0], dim.dimension)} · max{' '}
                {formatDriftValue(row.band[1], dim.dimension)}
              </div>
            ) : null}
          </>
        )}
      </div>
    )
  }

  return (
    <div
      className="drift-chart"
      data-testid="drift-chart"
      data-dimension={dim.dimension}
      data-points={dim.points}
      data-anomalies={n}
    >
      <div className="chart-title">
        <span>{label}</span>
        <span className="muted small">
          {counted(dim.points, 'value')}
          {n > 0 ? (
            <span className="warn-text">
              {' '}
              · {formatCount(n)}
              {dim.anomalies_truncated ? '+' : ''} anomal{n === 1 ? 'y' : 'ies'}
            </span>
          ) : null}
        </span>
      </div>
      {dim.points === 0 ? (
        <div className="drift-empty muted small" data-testid="drift-no-values">
          no values in these rows{dim.no_value ? `: ${dim.no_value}` : ''}
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={90}>
          <ComposedChart data={rows} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid vertical={false} className="grid-lines" />
            <XAxis
              dataKey="t"
              type="number"
              domain={[from, to]}
              scale="time"
              tickFormatter={(v: number) => axisTime(v, mode)}
              minTickGap={50}
              tickLine={false}
              className="axis"
            />
            <YAxis width={40} tickLine={false} axisLine={false} className="axis" tickFormatter={compact} />
            <Tooltip content={Tip} cursor={{ className: 'tip-cursor' }} isAnimationActive={false} />
            <Area dataKey="band" className="drift-band" isAnimationActive={false} connectNulls={false} />
            <Line dataKey="mean" className="drift-line" dot={false} isAnimationActive={false} connectNulls />
            {dim.anomalies.slice(0, MAX_DRAWN).map((a) => {
              const p = anomalyPoint(a)
              return (
                <ReferenceDot
                  key={`${a.seq}-${a.dimension}`}
                  x={p.t}
                  y={p.value}
                  ifOverflow="extendDomain"
                  shape={markShape(a, onSelectSeq)}
                />
              )
            })}
          </ComposedChart>
        </ResponsiveContainer>
      )}
      {dim.no_value && dim.points > 0 ? (
        <div className="chart-foot small muted" data-testid="drift-no-value-note">
          {dim.no_value}
        </div>
      ) : null}
      {note && dim.points > 0 ? (
        <div className="chart-foot small muted" data-testid="drift-baseline-note">
          {note}
        </div>
      ) : null}
    </div>
  )
}
