// Facts of the live listing by seq, from the in-memory index: where seqs are absent between two live
// rows (the table's gap rows, issue 35) and the timestamps of given seqs (replay marks on the
// timeline, issue 37). Only what the listing itself shows: whether an absent seq was deleted,
// truncated or never written is the verdict's to say, never this module's.
import type { SeqGap, SeqGaps, SeqTime } from '../../shared/chain-types'
import { positionOfSeq, type ChainIndex } from './chain-index'

/** Gaps listed at most (a chain with more shows gap rows for the first ones and says so). */
export const MAX_SEQ_GAPS = 100_000
/** Seqs a seqTimes request may name. */
export const MAX_SEQ_TIMES = 10_000

/** Every place where the next live row's seq is not the previous one's + 1 (the index is in seq order). */
export function seqGaps(idx: ChainIndex, max = MAX_SEQ_GAPS): SeqGaps {
  const gaps: SeqGap[] = []
  for (let i = 1; i < idx.rows; i++) {
    const a = idx.seq[i - 1]!
    const b = idx.seq[i]!
    if (b - a <= 1) continue
    if (gaps.length === max) return { gaps, truncated: true }
    gaps.push({ after_seq: a, before_seq: b, index: i })
  }
  return { gaps, truncated: false }
}

/** The timestamp_ns of each live seq asked for, in the order asked (absent seqs left out). */
export function seqTimes(idx: ChainIndex, seqs: readonly number[]): SeqTime[] {
  const out: SeqTime[] = []
  for (const seq of seqs) {
    const pos = positionOfSeq(idx, seq)
    if (pos === null) continue
    out.push({ seq, timestamp_ns: idx.tsValid[pos] ? idx.ts[pos]!.toString() : null })
  }
  return out
}
