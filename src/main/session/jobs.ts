// Long-running work as pollable, cancellable jobs — the same on IPC and HTTP.
import { randomUUID } from 'node:crypto'
import type { JobProgress, JobStatus } from '../../shared/job-types'
import { AuditError, oneLine } from '../base/errors'

export interface JobContext {
  progress(done: number, total: number, phase?: string): void
  signal: { aborted: boolean }
}

interface Job {
  status: JobStatus
  signal: { aborted: boolean }
  /** Started by the engine itself (the keyless check on open), not by a caller: not in running(). */
  background: boolean
}

const KEEP_FINISHED = 20

export class JobRegistry {
  private jobs = new Map<string, Job>()

  start<R>(
    kind: string,
    work: (ctx: JobContext) => Promise<R>,
    onDone?: (r: R) => void,
    opts: { background?: boolean } = {},
  ): JobStatus<R> {
    const id = randomUUID()
    const progress: JobProgress = { done: 0, total: 0, phase: 'starting' }
    const job: Job = {
      status: {
        id,
        kind,
        state: 'running',
        progress,
        started_at: new Date().toISOString(),
        result: null,
        error: null,
      },
      signal: { aborted: false },
      background: opts.background === true,
    }
    this.jobs.set(id, job)
    this.prune()
    const ctx: JobContext = {
      progress: (done, total, phase) => {
        job.status.progress = { done, total, phase: phase ?? job.status.progress.phase }
      },
      signal: job.signal,
    }
    // Start on the next turn so the caller gets the job id before any synchronous work runs.
    setImmediate(() => {
      work(ctx).then(
        (r) => {
          if (job.signal.aborted) {
            job.status.state = 'cancelled'
            return
          }
          job.status.state = 'done'
          job.status.result = r
          job.status.progress = { ...job.status.progress, done: job.status.progress.total, phase: 'done' }
          onDone?.(r)
        },
        (e: unknown) => {
          if (job.signal.aborted || (e instanceof AuditError && e.code === 'cancelled')) {
            job.status.state = 'cancelled'
            job.status.error = 'cancelled'
          } else {
            job.status.state = 'failed'
            job.status.error = oneLine(e)
          }
        },
      )
    })
    return { ...job.status } as JobStatus<R>
  }

  status(id: string): JobStatus {
    const job = this.jobs.get(id)
    if (!job) throw new AuditError('not_found', `no job ${id}`)
    return { ...job.status, progress: { ...job.status.progress } }
  }

  cancel(id: string): JobStatus {
    const job = this.jobs.get(id)
    if (!job) throw new AuditError('not_found', `no job ${id}`)
    if (job.status.state === 'running') job.signal.aborted = true
    return this.status(id)
  }

  /** Jobs callers started still running (a cancelled one counts until its work stops). */
  running(): number {
    let n = 0
    for (const j of this.jobs.values()) if (j.status.state === 'running' && !j.background) n++
    return n
  }

  cancelAll(): void {
    for (const j of this.jobs.values()) if (j.status.state === 'running') j.signal.aborted = true
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.status.state !== 'running')
    for (const j of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED)))
      this.jobs.delete(j.status.id)
  }
}
