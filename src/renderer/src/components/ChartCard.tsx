// The frame the window charts share: a title with the range's entry count, the error / loading /
// empty states shown instead of a chart, and the time-bucketed chart with the integrity window's
// halves drawn over it.
import type { ReactElement, ReactNode } from 'react'
import {
  CartesianGrid,
  ComposedChart,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  type TooltipContentProps,
} from 'recharts'
import type { Timeline } from '../../../shared/chain-types'
import { totalCount, type BucketRow } from '../lib/chart-data'
import { axisModeFor, axisTime, formatCount } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'
import './charts.css'

export interface HalvesView {
  baseline: { fromMs: number; toMs: number }
  current: { fromMs: number; toMs: number }
  /** The monitor's formula applied to the window (null when a half spans no time). */
  rates: { first: number; second: number } | null
  window: number
}

export function ChartTitle({
  label,
  timeline,
  totalTestId,
}: {
  label: string
  timeline: Timeline | null
  totalTestId: string
}) {
  return (
    <div className="chart-title">
      <span>{label}</span>
      <span className="muted small">
        <span data-testid={totalTestId}>{formatCount(totalCount(timeline))}</span> entries in range
      </span>
    </div>
  )
}

/** The card to show in place of the chart, or null when there are rows to draw. */
export function chartPlaceholder(
  title: ReactElement,
  testId: string,
  error: string | null | undefined,
  timeline: Timeline | null,
  rowCount: number,
): ReactElement | null {
  if (error)
    return (
      <div className="chart-card">
        {title}
        <div className="chart-empty error-line">{error}</div>
      </div>
    )
  if (!timeline || rowCount === 0)
    return (
      <div className="chart-card" data-testid={testId}>
        {title}
        <div className="chart-empty muted">{timeline ? 'no entries in range' : 'loading…'}</div>
      </div>
    )
  return null
}

/** The time the rows cover, from the first bucket's start to the last one's end (rows not empty). */
export function rowSpan(rows: BucketRow[]): { from: number; to: number } {
  return { from: rows[0]!.t, to: rows[rows.length - 1]!.tEnd }
}

interface WindowChartProps {
  testId: string
  title: ReactElement
  /** Not empty: chartPlaceholder answers for an empty range. */
  rows: BucketRow[]
  barCategoryGap: number
  yAxis: ReactElement
  tip: (props: TooltipContentProps) => ReactNode
  /** The line under the chart: what the window's halves say. */
  foot: ReactNode
  footTestId: string
  /** The series and overlays, in drawing order. */
  children: ReactNode
}

export function WindowChart({
  testId,
  title,
  rows,
  barCategoryGap,
  yAxis,
  tip,
  foot,
  footTestId,
  children,
}: WindowChartProps) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const { from, to } = rowSpan(rows)
  const mode = axisModeFor(to - from)
  return (
    <div className="chart-card" data-testid={testId}>
      {title}
      <ResponsiveContainer width="100%" height={150}>
        <ComposedChart
          data={rows}
          margin={{ top: 8, right: 12, bottom: 0, left: 0 }}
          barCategoryGap={barCategoryGap}
        >
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
          {yAxis}
          <Tooltip content={tip} cursor={{ className: 'tip-cursor' }} isAnimationActive={false} />
          {children}
        </ComposedChart>
      </ResponsiveContainer>
      <div className="chart-foot small" data-testid={footTestId}>
        {foot}
      </div>
    </div>
  )
}

/**
 * The window's baseline and current halves as shaded (or outlined) areas. Returned as elements,
 * not a component, so that recharts sees them as direct children of the chart.
 */
export function halfAreas(halves: HalvesView | null, className: string, labelled: boolean): ReactElement[] {
  if (!halves) return []
  const sides = [
    { key: 'baseline', span: halves.baseline, position: 'insideTopLeft' },
    { key: 'current', span: halves.current, position: 'insideTopRight' },
  ] as const
  return sides.map(({ key, span, position }) => (
    <ReferenceArea
      key={key}
      x1={span.fromMs}
      x2={span.toMs}
      ifOverflow="hidden"
      className={`${className} ${key}`}
      {...(labelled ? { label: { value: `${key} half`, position, className: 'ref-label' } } : {})}
    />
  ))
}
