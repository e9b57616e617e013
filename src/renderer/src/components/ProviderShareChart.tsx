// Each provider's share of the entries over the selected range (stacked to 100 %), with the
// integrity window's halves and any provider shift.
import { useMemo } from 'react'
import { Bar, Legend, YAxis, type TooltipContentProps } from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import { printable } from '../../../shared/printable'
import type { ProviderShift } from '../../../shared/integrity-types'
import { shiftsByDelta } from '../../../shared/provider-shifts'
import {
  bandName,
  OTHERS_KEY,
  providerColor,
  shareBands,
  shareKey,
  timelineRows,
  type BucketRow,
} from '../lib/chart-data'
import { axisTime, counted, formatCount, pyFloat, signed } from '../lib/format'
import { chartPlaceholder, ChartTitle, halfAreas, WindowChart, type HalvesView } from './ChartCard'
import { useTimeZone } from '../lib/stores/settings-store'
import { zoneLabel } from '../lib/time-zone'
import './charts.css'

interface Props {
  timeline: Timeline | null
  error: string | null
  /** All the chain's providers, for stable colours. */
  providers: string[]
  halves: HalvesView | null
  shift: ProviderShift | null
}

function ShareTip({ active, payload }: TooltipContentProps) {
  const row = payload?.[0]?.payload as BucketRow | undefined
  if (!active || !row) return null
  return (
    <div className="chart-tip">
      <div className="mono">
        {axisTime(row.t, 'year')} {zoneLabel(row.t)}
      </div>
      <div>{counted(row.count, 'entry', 'entries')}</div>
      {payload
        .filter((p) => typeof p.value === 'number' && p.value > 0)
        .map((p) => (
          <div key={String(p.name)}>
            <span className="swatch" style={{ background: p.color }} /> {String(p.name)}:{' '}
            {(p.value as number).toFixed(1)}%
          </div>
        ))}
    </div>
  )
}

export function ProviderShareChart({ timeline, error, providers, halves, shift }: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const rows = useMemo(() => timelineRows(timeline), [timeline])
  const bands = useMemo(() => shareBands(timeline), [timeline])
  const shifts = shift ? shiftsByDelta(shift) : []
  const title = <ChartTitle label="Provider share" timeline={timeline} totalTestId="share-total" />
  const placeholder = chartPlaceholder(title, 'share-chart', error, timeline, rows.length)
  if (placeholder || !timeline) return placeholder
  const foot =
    shifts.length > 0 ? (
      <span className="warn-text" data-testid="share-shift">
        Provider shift:{' '}
        {shifts
          .map(
            ([p, s]) =>
              `${p} ${pyFloat(s.baseline_pct)}% → ${pyFloat(s.current_pct)}% (${signed(s.delta_pct)}pp)`,
          )
          .join(' · ')}
      </span>
    ) : (
      <span className="muted" data-testid="share-stable">
        {halves
          ? `provider distribution stable across the window of ${formatCount(halves.window)}`
          : 'run the integrity monitor to compare the window halves'}
      </span>
    )
  const yAxis = (
    <YAxis
      width={40}
      domain={[0, 100]}
      ticks={[0, 50, 100]}
      unit="%"
      tickLine={false}
      axisLine={false}
      className="axis"
    />
  )
  return (
    <WindowChart
      testId="share-chart"
      title={title}
      rows={rows}
      barCategoryGap={0}
      yAxis={yAxis}
      tip={ShareTip}
      foot={foot}
      footTestId="share-summary"
    >
      {bands.shown.map((p) => (
        <Bar
          key={p}
          dataKey={shareKey(p)}
          // recharts draws the legend itself, past the JSX runtime that shows every other text as data.
          name={printable(bandName(timeline, p))}
          stackId="share"
          fill={providerColor(providers, p)}
          isAnimationActive={false}
        />
      ))}
      {bands.folded > 0 && (
        <Bar
          dataKey={OTHERS_KEY}
          name={`${formatCount(bands.folded)} other providers`}
          stackId="share"
          fill="var(--muted, #888)"
          isAnimationActive={false}
        />
      )}
      {halfAreas(halves, 'half-outline', false)}
      <Legend verticalAlign="top" align="right" height={18} iconSize={8} wrapperStyle={{ fontSize: 11 }} />
    </WindowChart>
  )
}
