// The chain table's columns and how its integers are read, apart from the SQLite reader so that
// the direct reader (which never loads SQLite for a chain of the reference schema) can use them.

import type { ChainColumn } from '../../shared/chain-columns'

export { CHAIN_COLUMNS, type ChainColumn } from '../../shared/chain-columns'

/** Without these nothing can be verified (the default requirement of every reading). */
export const REQUIRED_COLUMNS = [
  'seq',
  'timestamp_ns',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
] as const satisfies readonly ChainColumn[]

/**
 * What the integrity monitor reads (reference §5.2 selects exactly these): Python BIJOTEL's own test
 * tables (`tests/test_integrity.py`, §5.5) have only these five columns.
 */
export const INTEGRITY_COLUMNS = [
  'seq',
  'timestamp_ns',
  'canonical_hash',
  'prev_hash',
  'canonical_body',
] as const satisfies readonly ChainColumn[]

/** What a replay check reads (§6.4): the row's seq and body; its own row check needs the rest. */
export const REPLAY_COLUMNS = ['seq', 'canonical_body'] as const

/** Convert a SQLite integer (BigInt under safeIntegers) to a JS number, refusing silent rounding. */
export function toSafeNumber(v: unknown): number | null {
  if (typeof v === 'bigint') {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v
  return null
}

/** A `timestamp_ns` value as an exact BigInt, or null when the column holds something else. */
export function toBigIntOrNull(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : null
  if (typeof v === 'string' && /^-?\d{1,30}$/.test(v)) return BigInt(v)
  return null
}
