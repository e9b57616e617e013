// Long work on the engine side (verify, whole-chain integrity) is a job: poll its status until it
// ends, report progress, allow cancel. Works with any ApiClient (IPC or HTTP).
import type { ApiClient } from '../../../shared/contract'
import type { JobStatus } from '../../../shared/job-types'

export const POLL_MS = 150

export interface PollOptions {
  intervalMs?: number
  onUpdate?: (s: JobStatus) => void
  /** Stops polling (does not cancel the job: call cancelJob for that). */
  signal?: AbortSignal
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms)
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        resolve()
      },
      { once: true },
    )
  })

/** Poll `jobStatus` until the job is no longer running; resolves the final status. */
export async function pollJob(
  api: Pick<ApiClient, 'jobStatus'>,
  first: JobStatus,
  opts: PollOptions = {},
): Promise<JobStatus> {
  let s = first
  opts.onUpdate?.(s)
  while (s.state === 'running') {
    await sleep(opts.intervalMs ?? POLL_MS, opts.signal)
    if (opts.signal?.aborted) return s
    s = await api.jobStatus({ id: s.id })
    opts.onUpdate?.(s)
  }
  return s
}

/** 0..1, or null when the total is not known yet. */
export function jobFraction(s: JobStatus | null): number | null {
  if (!s || s.progress.total <= 0) return null
  return Math.min(1, Math.max(0, s.progress.done / s.progress.total))
}
