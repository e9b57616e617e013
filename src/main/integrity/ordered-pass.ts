// Detectors 1, 2 (steps), 4 and 5 of reference §5.3, fed rows in seq order, and the results they
// make with duplicates and bursts.
import type { IntegrityThresholds } from '../../shared/integrity-types'
import { ProviderSplitDetector } from './providers'
import { RateSplitDetector } from './rate'
import type { DetectorResults } from './report'
import { seqNum } from './seq-num'
import { SequenceGapDetector } from './sequence'
import { TimestampStepDetector } from './timestamps'

export type IntegrityProgress = (done: number, total: number, phase?: string) => void

export interface IntegrityHooks {
  /** Rows done / total; phase is 'integrity' for the detector pass, 'rotation' for the key check. */
  onProgress?: IntegrityProgress
  signal?: { aborted: boolean }
}

/** Detectors 1, 2 (steps), 4 and 5, fed one row at a time; `n` must be known up front (the split). */
export class OrderedPass {
  readonly gaps = new SequenceGapDetector()
  readonly steps: TimestampStepDetector
  readonly providers: ProviderSplitDetector
  readonly rate: RateSplitDetector
  rows = 0
  firstSeq: bigint | null = null
  lastSeq: bigint | null = null

  constructor(
    readonly n: number,
    t: IntegrityThresholds,
  ) {
    this.steps = new TimestampStepDetector(t.large_gap_sec)
    this.providers = new ProviderSplitDetector(n, t.provider_shift_pct, t.min_split_size)
    this.rate = new RateSplitDetector(n, t.rate_tol, t.min_split_size)
  }

  /** The next row. */
  pushColumns(seq: bigint, ts: bigint, provider: string): void {
    const i = this.rows++
    if (i === 0) this.firstSeq = seq
    this.lastSeq = seq
    this.gaps.push(seq)
    this.steps.push(seq, ts)
    this.providers.push(i, provider)
    this.rate.push(i, ts)
  }

  /**
   * The next row, known to the caller to change no detector but the provider counts: its seq follows
   * the previous row's by one, its timestamp step is neither backward nor a large gap, and the rate
   * detector does not read it (`quietAllowed`). Returns its index; the caller counts its provider
   * (`providers.add`). Before the next `pushColumns`, and at the end, `resume` must give the last
   * such row's seq and timestamp.
   */
  pushQuiet(): number {
    return this.rows++
  }

  /** Whether the next row may go through `pushQuiet` (given that it is quiet). */
  quietAllowed(): boolean {
    return this.rows > 0 && !this.rate.reads(this.rows)
  }

  resume(seq: bigint, ts: bigint): void {
    this.lastSeq = seq
    this.gaps.resume(seq)
    this.steps.resume(seq, ts)
  }
}

export function finish(
  pass: OrderedPass,
  dups: DetectorResults['hash_anomalies'],
  bursts: DetectorResults['timestamp_anomalies'],
): DetectorResults {
  return {
    window: pass.rows,
    first_seq: pass.firstSeq === null ? null : seqNum(pass.firstSeq),
    last_seq: pass.lastSeq === null ? null : seqNum(pass.lastSeq),
    sequence_gaps: pass.gaps.gaps,
    timestamp_anomalies: [...pass.steps.anomalies, ...bursts],
    hash_anomalies: dups,
    provider_shift: pass.providers.result(),
    rate_anomalies: pass.rate.result(),
    rotation_boundaries: [],
  }
}
