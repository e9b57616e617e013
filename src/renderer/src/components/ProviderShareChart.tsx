// Each provider's share of the entries over the selected range (stacked to 100 %), with the
// integrity window's halves and any provider shift.
import { useMemo } from 'react'
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import { chartPlaceholder, ChartTitle } from './ChartCard'
import type { ProviderShift } from '../../../shared/integrity-types'
import { providerColor, shareKey, timelineRows, type BucketRow } from '../lib/chart-data'
import { axisModeFor, axisTime, formatCount, pyFloat, signed } from '../lib/format'
import type { HalvesView } from './RateChart'

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
      <div className="mono">{axisTime(row.t, 'year')} UTC</div>
      <div>{formatCount(row.count)} entries</div>
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
  const rows = useMemo(() => timelineRows(timeline), [timeline])
  const shifts = shift
    ? Object.entries(shift.shifts).sort((a, b) => Math.abs(b[1].delta_pct) - Math.abs(a[1].delta_pct))
    : []
  const title = <ChartTitle label="Provider share" timeline={timeline} totalTestId="share-total" />
  const placeholder = chartPlaceholder(title, 'share-chart', error, timeline, rows.length)
  if (placeholder || !timeline) return placeholder
  const from = rows[0]!.t
  const to = rows[rows.length - 1]!.tEnd
  const mode = axisModeFor(to - from)
  return (
    <div className="chart-card" data-testid="share-chart">
      {title}
      <ResponsiveContainer width="100%" height={150}>
        <ComposedChart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }} barCategoryGap={0}>
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
            domain={[0, 100]}
            ticks={[0, 50, 100]}
            unit="%"
            tickLine={false}
            axisLine={false}
            className="axis"
          />
          <Tooltip content={ShareTip} cursor={{ className: 'tip-cursor' }} isAnimationActive={false} />
          {timeline.providers.map((p) => (
            <Bar
              key={p}
              dataKey={shareKey(p)}
              name={p}
              stackId="share"
              fill={providerColor(providers, p)}
              isAnimationActive={false}
            />
          ))}
          {halves ? (
            <ReferenceArea
              x1={halves.baseline.fromMs}
              x2={halves.baseline.toMs}
              ifOverflow="hidden"
              className="half-outline baseline"
            />
          ) : null}
          {halves ? (
            <ReferenceArea
              x1={halves.current.fromMs}
              x2={halves.current.toMs}
              ifOverflow="hidden"
              className="half-outline current"
            />
          ) : null}
          <Legend
            verticalAlign="top"
            align="right"
            height={18}
            iconSize={8}
            wrapperStyle={{ fontSize: 11 }}
          />
        </ComposedChart>
      </ResponsiveContainer>
      <div className="chart-foot small" data-testid="share-summary">
        {shifts.length > 0 ? (
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
        )}
      </div>
    </div>
  )
}
