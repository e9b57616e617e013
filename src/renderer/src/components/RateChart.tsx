// Entries per hour over the selected range, with the integrity window's two halves and their rates.
import { useMemo } from 'react'
import { Bar, ReferenceLine, YAxis, type TooltipContentProps } from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import type { RateAnomaly } from '../../../shared/integrity-types'
import { timelineRows, type BucketRow } from '../lib/chart-data'
import { axisTime, counted, formatCount, formatRate, pyFloat, signed } from '../lib/format'
import { chartPlaceholder, ChartTitle, halfAreas, rowSpan, WindowChart, type HalvesView } from './ChartCard'
import { useTimeZone } from '../lib/stores/settings-store'
import { zoneLabel } from '../lib/time-zone'
import './charts.css'

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
      <div className="mono">
        {axisTime(row.t, 'year')} {zoneLabel(row.t)}
      </div>
      <div>
        <b>{formatRate(row.rate)}</b> ({counted(row.count, 'entry', 'entries')})
      </div>
    </div>
  )
}

export function RateChart({ timeline, error, halves, rateAnomalies }: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const rows = useMemo(() => timelineRows(timeline), [timeline])
  const anomaly = rateAnomalies[0] ?? null
  const title = <ChartTitle label="Rate (entries / hour)" timeline={timeline} totalTestId="rate-total" />
  const placeholder = chartPlaceholder(title, 'rate-chart', error, timeline, rows.length)
  if (placeholder || !timeline) return placeholder
  const { from, to } = rowSpan(rows)
  const r = halves?.rates
  // Label the halves only when they are wide enough to hold the words.
  const wide =
    halves !== null && (halves.current.toMs - halves.baseline.fromMs) / Math.max(1, to - from) > 0.25
  const rateLines =
    halves && r
      ? [
          { key: 'baseline', span: halves.baseline, y: r.first },
          { key: 'current', span: halves.current, y: r.second },
        ]
      : []
  const foot = anomaly ? (
    <span className="warn-text" data-testid="rate-anomaly">
      Rate anomaly: {pyFloat(anomaly.baseline_rate)}/h → {pyFloat(anomaly.current_rate)}/h (
      {signed(anomaly.change_pct)}%)
    </span>
  ) : r ? (
    <span className="muted">
      window of {formatCount(halves?.window)}: baseline {formatRate(r.first)} · current {formatRate(r.second)}{' '}
      · stable
    </span>
  ) : (
    <span className="muted">
      {halves ? 'window halves shown' : 'run the integrity monitor to see the window halves'}
    </span>
  )
  const yAxis = (
    <YAxis
      width={40}
      tickLine={false}
      axisLine={false}
      className="axis"
      tickFormatter={(v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(Math.round(v)))}
    />
  )
  return (
    <WindowChart
      testId="rate-chart"
      title={title}
      rows={rows}
      barCategoryGap={1}
      yAxis={yAxis}
      tip={RateTip}
      foot={foot}
      footTestId="rate-summary"
    >
      {halfAreas(halves, 'half', wide)}
      <Bar dataKey="rate" className="bar-rate" isAnimationActive={false} />
      {rateLines.map(({ key, span, y }) => (
        <ReferenceLine
          key={key}
          segment={[
            { x: span.fromMs, y },
            { x: span.toMs, y },
          ]}
          ifOverflow="hidden"
          className={`rate-line${anomaly ? ' anomalous' : ''}`}
        />
      ))}
    </WindowChart>
  )
}
