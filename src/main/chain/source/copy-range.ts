// A verify range (--range, --last, --since/--until) resolved to seqs by SQLite on the private copy
// (./copy-source.ts): every condition on `+seq` (no rowid seek, optoverview §2), over `NOT INDEXED`.
import type { VerifyRangeOptions } from '../../../shared/verify-types'
import { INT64_MAX, INT64_MIN, type ResolvedRange } from './row-source'
import { sized } from './value-budget'

/**
 * The time bounds, compared only when timestamp_ns's stored size is within the database's
 * (./value-budget.ts `sized`: a value over a looping overflow chain is otherwise loaded whole, as
 * given, for the comparison alone). The comparisons stay on the column itself, inside the CASE: a
 * column's INTEGER affinity makes a stored '5' equal 5 (datatype3 §4.2), where an expression
 * without affinity (the CASE's own value) would not.
 */
const IN_TIME = sized('timestamp_ns', 'timestamp_ns >= ? AND timestamp_ns <= ?')

/** One row of a query on the copy, or undefined. */
type One = (sql: string, ...params: unknown[]) => unknown[] | undefined

/** The range's seqs: a time range's first and last seq, `--last N`'s first, from scans of the copy. */
export function resolveOnCopy(range: VerifyRangeOptions | undefined, one: One): ResolvedRange {
  let from = range?.seq_start !== undefined ? BigInt(range.seq_start) : INT64_MIN
  let to = range?.seq_end !== undefined ? BigInt(range.seq_end) : INT64_MAX
  if (range?.since_ns !== undefined || range?.until_ns !== undefined) {
    const since = range.since_ns !== undefined ? BigInt(range.since_ns) : INT64_MIN
    const until = range.until_ns !== undefined ? BigInt(range.until_ns) : INT64_MAX
    // A date outside the years timestamp_ns can hold (1677-2262 as int64 nanoseconds) selects
    // nothing or everything; SQLite cannot bind such a number (Python raises OverflowError).
    if (since > INT64_MAX || until < INT64_MIN || since > until) return { fromSeq: 0n, toSeq: -1n }
    const row = one(
      `SELECT min(seq), max(seq) FROM chain NOT INDEXED
        WHERE +seq BETWEEN ? AND ? AND ${IN_TIME}`,
      from,
      to,
      since < INT64_MIN ? INT64_MIN : since,
      until > INT64_MAX ? INT64_MAX : until,
    )
    if (!row || row[0] === null) return { fromSeq: 0n, toSeq: -1n }
    from = row[0] as bigint
    to = row[1] as bigint
  }
  if (range?.last_n !== undefined) {
    const row = one(
      'SELECT seq FROM chain NOT INDEXED WHERE +seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
      from,
      to,
      Math.max(1, Math.floor(range.last_n)) - 1,
    )
    if (row) from = row[0] as bigint
  }
  return { fromSeq: from, toSeq: to }
}
