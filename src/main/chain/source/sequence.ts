// The chain's sqlite_sequence value: with AUTOINCREMENT (reference §1.1) SQLite keeps there the
// largest seq the chain table ever held; a rollback restores it with its page, and DELETE never lowers
// it (only a hand-made UPDATE does). Read by the witness notice (../../audit/witness.ts) and by
// recovery, which asks whether any commit ever reached a recovered seq (../../recovery/prove.ts).
import type { RowSource } from './row-source'

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
