// Entries per hour over the selected range, with the integrity window's two halves and their rates.
import { useMemo } from 'react'
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import { chartPlaceholder, ChartTitle } from './ChartCard'
import type { RateAnomaly } from '../../../shared/integrity-types'
import { timelineRows, type BucketRow } from '../lib/chart-data'
import { axisModeFor, axisTime, formatCount, formatRate, pyFloat, signed } from '../lib/format'

export interface HalvesView {
  baseline: { fromMs: number; toMs: number }
  current: { fromMs: number; toMs: number }
  /** The monitor's formula applied to the window (null when a half spans no time). */
  rates: { first: number; second: number } | null
  window: number
}

interface Props {
  timeline: Timeline | null
  error: string | null
  halves: HalvesView | null
  rateAnomalies: RateAnomaly[]
}

function RateTip({ active, payload }: TooltipContentProps) {
  const row = payload?.[0]?.payload as BucketRow | undefined
  if (!active || !row) return null
  return (
    <div className="chart-tip">
      <div className="mono">{axisTime(row.t, 'year')} UTC</div>
      <div>
        <b>{formatRate(row.rate)}</b> ({formatCount(row.count)} entries)
      </div>
    </div>
  )
}

export function RateChart({ timeline, error, halves, rateAnomalies }: Props) {
  const rows = useMemo(() => timelineRows(timeline), [timeline])
  const anomaly = rateAnomalies[0] ?? null
  const title = <ChartTitle label="Rate (entries / hour)" timeline={timeline} totalTestId="rate-total" />
  const placeholder = chartPlaceholder(title, 'rate-chart', error, timeline, rows.length)
  if (placeholder || !timeline) return placeholder
  const from = rows[0]!.t
  const to = rows[rows.length - 1]!.tEnd
  const mode = axisModeFor(to - from)
  const r = halves?.rates
  // Label the halves only when they are wide enough to hold the words.
  const wide =
    halves !== null && (halves.current.toMs - halves.baseline.fromMs) / Math.max(1, to - from) > 0.25
  return (
    <div className="chart-card" data-testid="rate-chart">
      {title}
      <ResponsiveContainer width="100%" height={150}>
        <ComposedChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid vertical={false} className="grid-lines" />
          <XAxis
            dataKey="tMid"
            type="number"
            domain={[from, to]}
            scale="time"
            tickFormatter={(v: number) => axisTime(v, mode)}
            minTickGap={40}
            tickLine={false}
            className="axis"
          />
          <YAxis
            width={40}
            tickLine={false}
            axisLine={false}
            className="axis"
            tickFormatter={(v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(Math.round(v)))}
          />
          <Tooltip content={RateTip} cursor={{ className: 'tip-cursor' }} isAnimationActive={false} />
          {halves ? (
            <ReferenceArea
              x1={halves.baseline.fromMs}
              x2={halves.baseline.toMs}
              ifOverflow="hidden"
              className="half baseline"
              {...(wide
                ? { label: { value: 'baseline half', position: 'insideTopLeft', className: 'ref-label' } }
                : {})}
            />
          ) : null}
          {halves ? (
            <ReferenceArea
              x1={halves.current.fromMs}
              x2={halves.current.toMs}
              ifOverflow="hidden"
              className="half current"
              {...(wide
                ? { label: { value: 'current half', position: 'insideTopRight', className: 'ref-label' } }
                : {})}
            />
          ) : null}
          <Bar dataKey="rate" className="bar-rate" isAnimationActive={false} />
          {halves && r ? (
            <ReferenceLine
              segment={[
                { x: halves.baseline.fromMs, y: r.first },
                { x: halves.baseline.toMs, y: r.first },
              ]}
              ifOverflow="hidden"
              className={`rate-line${anomaly ? ' anomalous' : ''}`}
            />
          ) : null}
          {halves && r ? (
            <ReferenceLine
              segment={[
                { x: halves.current.fromMs, y: r.second },
                { x: halves.current.toMs, y: r.second },
              ]}
              ifOverflow="hidden"
              className={`rate-line${anomaly ? ' anomalous' : ''}`}
            />
          ) : null}
        </ComposedChart>
      </ResponsiveContainer>
      <div className="chart-foot small" data-testid="rate-summary">
        {anomaly ? (
          <span className="warn-text" data-testid="rate-anomaly">
            Rate anomaly: {pyFloat(anomaly.baseline_rate)}/h → {pyFloat(anomaly.current_rate)}/h (
            {signed(anomaly.change_pct)}%)
          </span>
        ) : r ? (
          <span className="muted">
            window of {formatCount(halves?.window)}: baseline {formatRate(r.first)} · current{' '}
            {formatRate(r.second)} · stable
          </span>
        ) : (
          <span className="muted">
            {halves ? 'window halves shown' : 'run the integrity monitor to see the window halves'}
          </span>
        )}
      </div>
    </div>
  )
}
