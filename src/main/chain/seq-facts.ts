// Facts of the live listing by seq, from the in-memory index: where seqs are absent between two live
// rows (the table's gap rows, issue 35) and the timestamps of given seqs (replay marks on the
// timeline, issue 37). Only what the listing itself shows: whether an absent seq was deleted,
// truncated or never written is the verdict's to say, never this module's.
import type { SeqGap, SeqGaps, SeqTime, TimelineFilter } from '../../shared/chain-types'
import { positionOfSeq, type ChainIndex } from './chain-index'
import { timelineRowTest } from './timeline-filter'

/** Gaps in one answer: a chain with more is listed in pages (every gap is reachable, issue 35). */
export const MAX_SEQ_GAPS = 100_000
/** Seqs a seqTimes request may name. */
export const MAX_SEQ_TIMES = 10_000

/**
 * The places where the next live row's seq is not the previous one's + 1 (the index is in seq
 * order), from listing position `from` on: at most `max`, `truncated` when more follow.
 */
export function seqGaps(idx: ChainIndex, from = 0, max = MAX_SEQ_GAPS): SeqGaps {
  const gaps: SeqGap[] = []
  for (let i = Math.max(1, from); i < idx.rows; i++) {
    const a = idx.seq[i - 1]!
    const b = idx.seq[i]!
    if (b - a <= 1) continue
    if (gaps.length === max) return { gaps, truncated: true }
    gaps.push({ after_seq: a, before_seq: b, index: i })
  }
  return { gaps, truncated: false }
}

/**
 * The timestamp_ns of each live seq asked for, in the order asked (absent seqs left out), and with
 * `filter` only those the timeline's points count (`flagged`, `found`: as buildTimeline takes them).
 */
export function seqTimes(
  idx: ChainIndex,
  seqs: readonly number[],
  filter: TimelineFilter = {},
  flagged: ReadonlySet<number> | null = null,
  found: ReadonlySet<number> | null = null,
): SeqTime[] {
  const passes = timelineRowTest(idx, filter, flagged, found)
  const out: SeqTime[] = []
  for (const seq of seqs) {
    const pos = positionOfSeq(idx, seq)
    if (pos === null || !passes(pos)) continue
    out.push({ seq, timestamp_ns: idx.tsValid[pos] ? idx.ts[pos]!.toString() : null })
  }
  return out
}
