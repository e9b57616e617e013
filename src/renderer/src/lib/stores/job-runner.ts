// One job at a time (verify, whole-chain integrity): start it, poll its status (~150 ms), cancel it
// (even before the engine has given it an id), stop following it when its workspace goes away.
import type { ApiClient } from '../../../../shared/contract'
import type { JobStatus } from '../../../../shared/job-types'
import { errorMessage } from '../format'
import { pollJob } from '../jobs'
import { Store } from './store'

export interface JobState {
  status: JobStatus | null
  error: string | null
}

const STARTING: JobStatus = {
  id: '',
  kind: '',
  state: 'running',
  progress: { done: 0, total: 0, phase: 'starting' },
  started_at: '',
  result: null,
  error: null,
}

export class JobRunner<R> extends Store<JobState> {
  private abort: AbortController | null = null
  private id: string | null = null
  // A cancel asked for before the engine gave the job an id (its start can wait, e.g. for a staged
  // open's verified copy) is sent as soon as the id arrives.
  private cancelAsked = false

  constructor(private readonly api: Pick<ApiClient, 'jobStatus' | 'cancelJob'>) {
    super({ status: null, error: null })
  }

  get running(): boolean {
    return this.getState().status !== null
  }

  /** Resolves the job's result, or null when it was cancelled, failed or superseded. */
  async run(start: () => Promise<JobStatus<R>>): Promise<R | null> {
    this.abort?.abort()
    const ac = new AbortController()
    this.abort = ac
    this.cancelAsked = false
    this.update({ status: STARTING, error: null })
    try {
      const first = await start()
      this.id = first.id
      if (this.cancelAsked && !ac.signal.aborted)
        void this.api.cancelJob({ id: first.id }).catch(() => undefined)
      const last = await pollJob(this.api, first, {
        signal: ac.signal,
        onUpdate: (s) => {
          if (!ac.signal.aborted) this.update({ status: s })
        },
      })
      if (ac.signal.aborted) return null
      this.update({ status: null })
      if (last.state === 'failed') {
        this.update({ error: last.error ?? 'the job failed' })
        return null
      }
      if (last.state === 'cancelled') {
        this.update({ error: 'cancelled' })
        return null
      }
      return last.result as R | null
    } catch (e) {
      if (!ac.signal.aborted) this.update({ status: null, error: errorMessage(e) })
      return null
    } finally {
      if (this.abort === ac) {
        this.abort = null
        this.id = null
      }
    }
  }

  readonly cancel = (): void => {
    const id = this.id
    if (id) void this.api.cancelJob({ id }).catch(() => undefined)
    else if (this.abort) this.cancelAsked = true
  }

  /** Stop following (the engine cancels a chain's jobs itself when the chain changes). */
  dispose(): void {
    this.abort?.abort()
  }
}
