// Long work (verify, whole-chain integrity) runs as a job: started, polled for progress, cancellable.
// The same shape travels over IPC and HTTP.

export type JobState = 'running' | 'done' | 'failed' | 'cancelled'

export interface JobProgress {
  done: number
  total: number
  phase: string
}

export interface JobStatus<R = unknown> {
  id: string
  kind: string
  state: JobState
  progress: JobProgress
  started_at: string
  result: R | null
  error: string | null
}
