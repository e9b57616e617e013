// Reading the rows the detectors look at: seq, timestamp_ns, canonical_hash and the provider of the
// canonical body (reference §5.2). Integers are read as BigInt (timestamps are ≈1.7×10^18 ns).
import type Database from 'better-sqlite3'
import { parseBody, providerOf } from '../chain/body'
import { bodyFacts } from '../chain/body-scan'
import { toBigIntOrNull } from '../chain/table'
import { AuditError, asChainReadError } from '../errors'

export interface IntegrityRow {
  seq: bigint
  ts: bigint
  /**
   * canonical_hash as a dictionary key with Python's equality (text, bytes and numbers never equal
   * one another; 5 == 5.0), or null when Python would skip it (`if not h`: NULL, '', b'', 0).
   */
  hashKey: string | null
  provider: string
}

/** SQL truth of canonical_hash as Python sees it (NULL, '', x'' and 0 are falsy), for --all. */
export const HASH_TRUTHY_SQL = `(canonical_hash IS NOT NULL AND NOT (
    (typeof(canonical_hash) = 'text' AND canonical_hash = '') OR
    (typeof(canonical_hash) IN ('integer', 'real') AND canonical_hash = 0) OR
    (typeof(canonical_hash) = 'blob' AND length(canonical_hash) = 0)))`

export function hashKey(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v === '' ? null : `s:${v}`
  if (Buffer.isBuffer(v) || v instanceof Uint8Array)
    return v.length === 0 ? null : `b:${Buffer.from(v).toString('hex')}`
  if (typeof v === 'bigint') return v === 0n ? null : `n:${v}`
  if (typeof v === 'number') {
    if (v === 0) return null
    return Number.isInteger(v) ? `n:${BigInt(v)}` : `n:${v}`
  }
  return `s:${String(v)}`
}

/** Provider of a body; anything that is not UTF-8 JSON (Python crashes there) counts as `unknown`. */
export function rowProvider(body: unknown): string {
  if (body === null || body === undefined) return 'unknown'
  if (!(body instanceof Uint8Array)) return providerOf(parseBody(Buffer.from(String(body), 'utf8')))
  return bodyFacts(Buffer.isBuffer(body) ? body : Buffer.from(body)).provider
}

export function toRow(raw: unknown[]): IntegrityRow {
  const seq = toBigIntOrNull(raw[0])
  if (seq === null) throw new AuditError('corrupt', `chain row with a non-integer seq (${String(raw[0])})`)
  const ts = toBigIntOrNull(raw[1])
  if (ts === null) {
    throw new AuditError(
      'corrupt',
      `timestamp_ns of seq=${seq} is not an integer (${String(raw[1])}); the integrity detectors need integer timestamps`,
    )
  }
  return { seq, ts, hashKey: hashKey(raw[2]), provider: rowProvider(raw[3]) }
}

const COLUMNS = 'seq, timestamp_ns, canonical_hash, CAST(canonical_body AS BLOB)'

/** The last `limit` rows by seq, ascending: `ORDER BY seq DESC LIMIT n`, then reversed (§5.2). */
export function loadWindow(db: Database.Database, limit: number): IntegrityRow[] {
  try {
    const raws = db
      .prepare(`SELECT ${COLUMNS} FROM chain ORDER BY seq DESC LIMIT ?`)
      .raw(true)
      .safeIntegers(true)
      .all(limit) as unknown[][]
    raws.reverse()
    return raws.map(toRow)
  } catch (e) {
    throw asChainReadError(e, 'loading the integrity window')
  }
}

/** Every row, ascending, one at a time (memory does not grow with the chain). */
export function* streamRows(db: Database.Database): Generator<IntegrityRow> {
  let it: IterableIterator<unknown[]>
  try {
    it = db
      .prepare(`SELECT ${COLUMNS} FROM chain ORDER BY seq`)
      .raw(true)
      .safeIntegers(true)
      .iterate() as IterableIterator<unknown[]>
  } catch (e) {
    throw asChainReadError(e, 'reading the chain for the integrity pass')
  }
  try {
    for (;;) {
      let next: IteratorResult<unknown[]>
      try {
        next = it.next()
      } catch (e) {
        throw asChainReadError(e, 'reading the chain for the integrity pass')
      }
      if (next.done) return
      yield toRow(next.value)
    }
  } finally {
    it.return?.()
  }
}

/** A seq or count as a JS number, refusing values that would be rounded. */
export function seqNum(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new AuditError('corrupt', `seq ${v} is beyond the exact range of a JSON number (±2^53)`)
  }
  return Number(v)
}
