// Detector 3 — duplicate canonical_hash (reference §5.3.3): every later row carrying a hash already
// seen is reported against the first row that had it. Empty (falsy) hashes are skipped.
import type { HashAnomaly } from '../../shared/integrity-types'
import { seqNum } from './seq-num'

export function duplicateAnomaly(seq: bigint, firstSeq: bigint): HashAnomaly {
  return { seq: seqNum(seq), type: 'duplicate_canonical', detail: `same canonical_hash as seq=${firstSeq}` }
}
