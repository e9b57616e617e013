// Detector 2 — timestamps (reference §5.3.2): backward steps and large gaps between consecutive rows,
// then bursts (more than the threshold of rows in one epoch second). Float math as Python's:
// `delta_sec = (ts[i] - ts[i-1]) / 1e9` turns the exact integer difference into a double first.
import type Database from 'better-sqlite3'
import type { TimestampAnomaly } from '../../shared/integrity-types'
import { asChainReadError } from '../errors'
import { pyFixed, pyRound } from '../pyformat'
import { seqNum } from './rows'

const NS_PER_SEC = 1_000_000_000n

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

/** Python's `ts // 1_000_000_000`: floor division (BigInt `/` truncates toward zero). */
export function epochSecond(ts: bigint): bigint {
  const q = ts / NS_PER_SEC
  return ts < 0n && q * NS_PER_SEC !== ts ? q - 1n : q
}

export function burstAnomaly(second: bigint, count: number): TimestampAnomaly {
  return { seq: 0, type: 'burst', delta_sec: 0.0, detail: `${count} entries in 1 second at epoch ${second}` }
}

/** Bursts of in-memory rows, in order of each second's first appearance. */
export function burstsOf(timestamps: Iterable<bigint>, threshold: number): TimestampAnomaly[] {
  const counts = new Map<bigint, number>()
  for (const ts of timestamps) {
    const s = epochSecond(ts)
    counts.set(s, (counts.get(s) ?? 0) + 1)
  }
  const out: TimestampAnomaly[] = []
  for (const [s, c] of counts) if (c > threshold) out.push(burstAnomaly(s, c))
  return out
}

/** SQL form of `epochSecond` (SQLite's integer `/` truncates, its `%` keeps the dividend's sign). */
export const EPOCH_SECOND_SQL = `(CASE WHEN CAST(timestamp_ns AS INTEGER) < 0 AND CAST(timestamp_ns AS INTEGER) % 1000000000 <> 0
      THEN CAST(timestamp_ns AS INTEGER) / 1000000000 - 1
      ELSE CAST(timestamp_ns AS INTEGER) / 1000000000 END)`

/** Bursts over the whole chain: one GROUP BY instead of a per-second map, ordered by first row. */
export function burstsInChain(db: Database.Database, threshold: number): TimestampAnomaly[] {
  try {
    const rows = db
      .prepare(
        `SELECT sec, COUNT(*) AS n FROM (SELECT seq, ${EPOCH_SECOND_SQL} AS sec FROM chain)
          GROUP BY sec HAVING COUNT(*) > ? ORDER BY MIN(seq)`,
      )
      .raw(true)
      .safeIntegers(true)
      .all(threshold) as [bigint, bigint][]
    return rows.map(([sec, n]) => burstAnomaly(sec, Number(n)))
  } catch (e) {
    throw asChainReadError(e, 'counting rows per second')
  }
}
