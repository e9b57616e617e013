// Detector 1 — sequence gaps (reference §5.3.1). Gaps before the window's first row are not seen.
import type { SequenceGap } from '../../shared/integrity-types'
import { seqNum } from './seq-num'

export class SequenceGapDetector {
  readonly gaps: SequenceGap[] = []
  private prev: bigint | null = null

  push(seq: bigint): void {
    const prev = this.prev
    if (prev !== null && seq !== prev + 1n) {
      this.gaps.push({
        after_seq: seqNum(prev),
        before_seq: seqNum(seq),
        missing_count: seqNum(seq - prev - 1n),
      })
    }
    this.prev = seq
  }

  /** Continue after rows the caller has seen to follow one another by one, the last being `seq`. */
  resume(seq: bigint): void {
    this.prev = seq
  }
}
