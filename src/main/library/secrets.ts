// Candidate HMAC keys as a library caller gives them. Python BIJOTEL takes the key as bytes and its
// CLI decodes `--secret-hex` (reference §3.1); here a string is hex, decoded as Python's
// `bytes.fromhex`, bytes are the key itself, and `{ text }` is the Go collector's raw UTF-8 fallback
// (§2.6 item 7) — never guessed. Error messages name a key by position only, never by content.
import { AuditError } from '../base/errors'
import { parseSecret, type KeyMaterial } from '../chain/keys'

/** One candidate key: a hex string, the key's bytes, or `{ text }` for a raw UTF-8 secret. */
export type ChainSecret = string | Uint8Array | { text: string }

/** A key, or several candidate keys for a chain whose secret was rotated. */
export type ChainSecrets = ChainSecret | readonly ChainSecret[]

function isList(s: ChainSecrets): s is readonly ChainSecret[] {
  return Array.isArray(s)
}

/** The engine's key material, in the order given (key_index in verdicts is this position). */
export function keyMaterial(secrets: ChainSecrets | undefined): KeyMaterial[] {
  if (secrets === undefined) return []
  const list = isList(secrets) ? secrets : [secrets as ChainSecret]
  return list.map((s, index): KeyMaterial => {
    if (typeof s === 'string') return parseSecret({ value: s, encoding: 'hex' }, index)
    if (s instanceof Uint8Array) {
      if (s.length === 0) throw new AuditError('no_secret', `secret #${index + 1} is empty`)
      return { index, encoding: 'hex', bytes: Buffer.from(s) }
    }
    if (s && typeof s === 'object' && typeof s.text === 'string')
      return parseSecret({ value: s.text, encoding: 'text' }, index)
    throw new AuditError(
      'bad_secret',
      `secret #${index + 1} must be a hex string, a Uint8Array or { text: string }`,
    )
  })
}
