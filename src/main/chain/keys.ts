// Candidate keys. Python BIJOTEL decodes secrets only as hex (`bytes.fromhex`); the Go collector
// falls back to the raw UTF-8 bytes of a non-hex string. Both are offered, but the encoding is always
// explicit and reported, never guessed. Error messages never echo any part of a secret (reference
// §11.18: Python prints its first 8 characters).
import { createHash } from 'node:crypto'
import type { SecretInput } from '../../shared/contract'
import type { KeyInfo } from '../../shared/verify-types'
import { AuditError } from '../base/errors'
import { decodeHexLikePython } from './key-list'

export { decodeHexLikePython, KEY_LIST_MAX_BYTES, parseKeyList } from './key-list'

export interface KeyMaterial {
  index: number
  encoding: 'hex' | 'text'
  bytes: Buffer
}

export function parseSecret(input: SecretInput, index: number): KeyMaterial {
  const label = `secret #${index + 1}`
  if (input.value.length === 0) throw new AuditError('no_secret', `${label} is empty`)
  if (input.encoding === 'text') {
    return { index, encoding: 'text', bytes: Buffer.from(input.value, 'utf8') }
  }
  const bytes = decodeHexLikePython(input.value)
  if (!bytes) {
    throw new AuditError(
      'bad_secret',
      `Invalid hex in ${label} (${input.value.length} characters); use --secret-text for a raw UTF-8 secret`,
    )
  }
  if (bytes.length === 0) throw new AuditError('no_secret', `${label} decodes to zero bytes`)
  return { index, encoding: 'hex', bytes }
}

export function parseSecrets(inputs: SecretInput[]): KeyMaterial[] {
  return inputs.map((s, i) => parseSecret(s, i))
}

export function keyInfo(k: KeyMaterial): KeyInfo {
  return {
    index: k.index,
    encoding: k.encoding,
    bytes: k.bytes.length,
    fingerprint: createHash('sha256').update(k.bytes).digest('hex').slice(0, 8),
  }
}
