// Detector 3 — duplicate canonical_hash (reference §5.3.3): every later row carrying a hash already
// seen is reported against the first row that had it. Empty (falsy) hashes are skipped.
import type Database from 'better-sqlite3'
import type { HashAnomaly } from '../../shared/integrity-types'
import { asChainReadError } from '../errors'
import { HASH_TRUTHY_SQL, seqNum } from './rows'

export function duplicateAnomaly(seq: bigint, firstSeq: bigint): HashAnomaly {
  return { seq: seqNum(seq), type: 'duplicate_canonical', detail: `same canonical_hash as seq=${firstSeq}` }
}

export class DuplicateHashDetector {
  readonly anomalies: HashAnomaly[] = []
  private readonly firstSeen = new Map<string, bigint>()

  push(seq: bigint, hashKey: string | null): void {
    if (hashKey === null) return
    const first = this.firstSeen.get(hashKey)
    if (first === undefined) this.firstSeen.set(hashKey, seq)
    else this.anomalies.push(duplicateAnomaly(seq, first))
  }
}

/**
 * The same over the whole chain without a per-row map: group by hash in SQL, keep the groups with
 * more than one row, and list every row of those groups after the group's first seq, in seq order.
 */
export function duplicatesInChain(db: Database.Database): HashAnomaly[] {
  try {
    const rows = db
      .prepare(
        `WITH dup AS (
           SELECT canonical_hash AS h, MIN(seq) AS first_seq FROM chain
            WHERE ${HASH_TRUTHY_SQL}
            GROUP BY canonical_hash COLLATE BINARY HAVING COUNT(*) > 1)
         SELECT c.seq, dup.first_seq FROM chain c JOIN dup ON c.canonical_hash = dup.h COLLATE BINARY
          WHERE c.seq > dup.first_seq
          ORDER BY c.seq`,
      )
      .raw(true)
      .safeIntegers(true)
      .all() as [bigint, bigint][]
    return rows.map(([seq, first]) => duplicateAnomaly(seq, first))
  } catch (e) {
    throw asChainReadError(e, 'looking for duplicate canonical hashes')
  }
}
