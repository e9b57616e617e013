// The sqlite_sequence witness (issue 39): with AUTOINCREMENT (reference §1.1) SQLite keeps in
// sqlite_sequence the largest seq the chain table ever held, and never lowers it on DELETE. A value
// above the largest live seq says rows past the head once existed — or that someone raised it by hand
// (it is an ordinary, unsealed table). So it is a notice, never a finding.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { RowSource } from '../chain/source/row-source'
import { sequenceOf } from '../chain/source/sequence'

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
