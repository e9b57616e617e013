// The sqlite_sequence witness (issue 39): with AUTOINCREMENT (reference §1.1) SQLite keeps in
// sqlite_sequence the largest seq the chain table ever held, and never lowers it on DELETE. A value
// above the largest live seq says rows past the head once existed — or that someone raised it by hand
// (it is an ordinary, unsealed table). So it is a notice, never a finding.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { RowSource } from '../chain/source/row-source'

/** The chain's sqlite_sequence value, or null when the file has none. */
export function sequenceOf(source: RowSource): bigint | null {
  let seq: bigint | null = null
  try {
    source.scanTable('sqlite_sequence', ['name', 'seq'], (v) => {
      if (v[0] === 'chain' && typeof v[1] === 'bigint') seq = v[1]
      else if (v[0] === 'chain' && typeof v[1] === 'number') seq = BigInt(v[1])
    })
  } catch {
    // A side table the reader cannot read proves nothing either way.
    return null
  }
  return seq
}

/** `verdict` with the witness notice, for a whole-chain verdict whose sqlite_sequence is above its head. */
export function withWitness(source: RowSource, verdict: VerifyVerdict): VerifyVerdict {
  if (verdict.cancelled || verdict.range || verdict.last_seq === null) return verdict
  const seq = sequenceOf(source)
  if (seq === null || seq <= BigInt(verdict.last_seq)) return verdict
  const notice =
    `sqlite_sequence records seq ${seq} for the chain table, above the largest live seq ${verdict.last_seq}: ` +
    'rows past the head once existed, or the value was raised by hand (it is not sealed)'
  return { ...verdict, notices: [...(verdict.notices ?? []), notice] }
}
