// The frame both charts share: a title with the range's entry count, and the error / loading /
// empty states shown instead of a chart.
import type { ReactElement } from 'react'
import type { Timeline } from '../../../shared/chain-types'
import { totalCount } from '../lib/chart-data'
import { formatCount } from '../lib/format'

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
