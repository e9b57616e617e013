// Progress of a running job, with Cancel.
import type { JobStatus } from '../../../shared/job-types'
import { formatCount } from '../lib/format'
import { jobFraction } from '../lib/jobs'
import './JobProgress.css'

interface Props {
  status: JobStatus | null
  onCancel: () => void
  testId: string
}

export function JobProgress({ status, onCancel, testId }: Props) {
  const f = jobFraction(status)
  const pct = f === null ? null : Math.round(f * 1000) / 10
  return (
    <div className="job" data-testid={testId}>
      <div
        className={`bar${f === null ? ' indeterminate' : ''}`}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-label={status?.progress.phase ?? 'working'}
      >
        <div className="fill" style={{ width: f === null ? '30%' : `${(f * 100).toFixed(1)}%` }} />
      </div>
      <div className="job-line">
        <span className="muted">
          {status?.progress.phase ?? 'starting'}
          {status && status.progress.total > 0
            ? ` ${formatCount(status.progress.done)} / ${formatCount(status.progress.total)}`
            : ''}
          {pct !== null ? ` (${pct.toFixed(1)}%)` : ''}
        </span>
        <button type="button" className="btn small" onClick={onCancel} data-testid={`${testId}-cancel`}>
          Cancel
        </button>
      </div>
    </div>
  )
}
