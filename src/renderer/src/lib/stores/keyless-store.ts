// The keyless check the engine starts whenever a chain opens (`verify --keyless`: body hashes,
// links, seq contiguity, unsealed columns; HMACs not checked): followed like any job, so its breaks
// are on screen before a key is typed. Its verdict carries `hmac_checked: false` and never proves the
// chain valid: only the keyed verify can (the forger without the key could rewrite a body with its
// canonical_hash; reference §11).
import type { ApiClient } from '../../../../shared/contract'
import type { JobStatus } from '../../../../shared/job-types'
import type { VerifyVerdict } from '../../../../shared/verify-types'
import { jobEndSentence } from '../announce-text'
import { keylessSentence } from '../keyless'
import { announcer } from './announcer'
import { JobRunner } from './job-runner'
import { Store } from './store'

export interface KeylessState {
  verdict: VerifyVerdict | null
  /** False until the engine has answered whether it runs a check for this chain. */
  asked: boolean
}

export class KeylessStore extends Store<KeylessState> {
  readonly job: JobRunner<VerifyVerdict>

  constructor(
    private readonly api: Pick<ApiClient, 'keylessVerdict' | 'jobStatus' | 'cancelJob'>,
    /** Told when the verdict arrives (the flagged rows change). */
    private readonly onVerdict: (v: VerifyVerdict) => void = () => undefined,
  ) {
    super({ verdict: null, asked: false })
    this.job = new JobRunner(api)
  }

  dispose(): void {
    this.job.dispose()
  }

  /** Follow the engine's keyless job of this chain until it ends (nothing when it has none). */
  readonly load = async (): Promise<void> => {
    let first: JobStatus<VerifyVerdict> | null
    try {
      first = await this.api.keylessVerdict()
    } catch {
      first = null
    }
    this.update({ asked: true })
    if (first === null) return
    const started = first
    const v = await this.job.run(() => Promise.resolve(started))
    const error = this.job.getState().error
    if (v) {
      this.update({ verdict: v })
      this.onVerdict(v)
      announcer.announce(keylessSentence(v))
    } else if (error) announcer.announce(jobEndSentence('Keyless check', error))
  }

  readonly cancel = (): void => this.job.cancel()
}
