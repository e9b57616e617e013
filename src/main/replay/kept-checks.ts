// A replay batch's checks as the session and `report --replay-batch` keep them: the first
// REPLAY_BATCH_KEEP listed, the rest counted (a body of short lines holds millions of checks, each
// ≈1 KB), and the report's record of the batch saying how many were made and not kept.
import type { ReplayCheck } from '../../shared/replay-types'
import { REPLAY_BATCH_KEEP, type ReplayBatchRecord } from '../../shared/report-types'

export class KeptChecks {
  readonly checks: ReplayCheck[] = []
  notKept = 0

  constructor(private readonly keep: number = REPLAY_BATCH_KEEP) {}

  add(check: ReplayCheck): void {
    if (this.checks.length < this.keep) this.checks.push(check)
    else this.notKept++
  }

  /** The batch's record in a report's `replay_batches`, its kept checks listed from `first`. */
  record(first: number): ReplayBatchRecord {
    return { first, kept: this.checks.length, not_kept: this.notKept }
  }
}
