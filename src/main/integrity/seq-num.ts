// Seqs and counts go into the report as JSON numbers, which are exact only to ±2^53.
import { AuditError } from '../base/errors'

/** A seq or count as a JS number, refusing values that would be rounded. */
export function seqNum(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new AuditError('corrupt', `seq ${v} is beyond the exact range of a JSON number (±2^53)`)
  }
  return Number(v)
}
