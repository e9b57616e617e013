// Detector 2 — timestamps (reference §5.3.2): backward steps and large gaps between consecutive rows,
// then bursts (more than the threshold of rows in one epoch second). Float math as Python's:
// `delta_sec = (ts[i] - ts[i-1]) / 1e9` turns the exact integer difference into a double first.
import type { TimestampAnomaly } from '../../shared/integrity-types'
import { pyFixed, pyRound } from '../python/pyformat'
import { epochSecond } from '../chain/ts-words'
import { seqNum } from './seq-num'

export { epochSecond }

export class TimestampStepDetector {
  readonly anomalies: TimestampAnomaly[] = []
  private prevSeq: bigint | null = null
  private prevTs = 0n

  constructor(private readonly largeGapSec: number) {}

  push(seq: bigint, ts: bigint): void {
    if (this.prevSeq !== null) {
      const delta = Number(ts - this.prevTs) / 1e9
      if (delta < 0) {
        this.anomalies.push({
          seq: seqNum(seq),
          type: 'backward',
          delta_sec: pyRound(delta, 3),
          detail: `timestamp went back ${pyFixed(Math.abs(delta), 3)}s vs seq=${this.prevSeq}`,
        })
      } else if (delta > this.largeGapSec) {
        this.anomalies.push({
          seq: seqNum(seq),
          type: 'large_gap',
          delta_sec: pyRound(delta, 3),
          detail: `${pyFixed(delta / 60, 1)} min gap since seq=${this.prevSeq}`,
        })
      }
    }
    this.prevSeq = seq
    this.prevTs = ts
  }

  /** Continue after rows the caller has seen to step neither back nor by a large gap, the last being (seq, ts). */
  resume(seq: bigint, ts: bigint): void {
    this.prevSeq = seq
    this.prevTs = ts
  }
}

export function burstAnomaly(second: bigint, count: number): TimestampAnomaly {
  return { seq: 0, type: 'burst', delta_sec: 0.0, detail: `${count} entries in 1 second at epoch ${second}` }
}
