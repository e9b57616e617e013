// The Ed25519 signing key of `export --sign-key PEM` (reference §9.1): an unencrypted PKCS#8 PEM
// private key. Refusals carry the reference's words (`invalid signing key PEM: …`, `signing key is
// not Ed25519 (got <Type>)`, with the class name Python's cryptography gives each key type).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import { readClientFile } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { pemKeyProblem } from '../chain/ed25519-strict'

/** Python cryptography's class names for the key types Node names (what `type(priv).__name__` prints). */
const PY_KEY_CLASS: Record<string, string> = {
  rsa: 'RSAPrivateKey',
  'rsa-pss': 'RSAPrivateKey',
  dsa: 'DSAPrivateKey',
  ec: 'EllipticCurvePrivateKey',
  ed448: 'Ed448PrivateKey',
  x25519: 'X25519PrivateKey',
  x448: 'X448PrivateKey',
  dh: 'DHPrivateKey',
}

export interface SigningKey {
  key: KeyObject
  /** The raw 32-byte public key (RFC 8032 §5.1.5 encoding). */
  publicRaw: Buffer
  /** First 16 hex of SHA-256(raw public key), as `inspect_export` reports it. */
  fingerprint: string
}

export function loadSigningKey(path: string): SigningKey {
  // The reference's wording for a missing file; every other refusal is the one open's.
  const pem = readClientFile(path, { label: '--sign-key path', maxBytes: 64 * 1024 })
  const problem = pemKeyProblem(pem.toString('utf8'), 'private')
  if (problem !== null) throw new AuditError('bad_argument', `invalid signing key PEM: ${problem}`)
  let key: KeyObject
  try {
    key = createPrivateKey({ key: pem, format: 'pem' })
  } catch (e) {
    throw new AuditError('bad_argument', `invalid signing key PEM: ${oneLine(e)}`)
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    const t = key.asymmetricKeyType ?? 'unknown'
    throw new AuditError('bad_argument', `signing key is not Ed25519 (got ${PY_KEY_CLASS[t] ?? t})`)
  }
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' })
  // An Ed25519 SPKI is a fixed 12-byte prefix and the 32-byte key (RFC 8410 §4).
  const publicRaw = Buffer.from(der.subarray(der.length - 32))
  return {
    key,
    publicRaw,
    fingerprint: createHash('sha256').update(publicRaw).digest('hex').slice(0, 16),
  }
}

/** Ed25519 signature (RFC 8032, pure) of the ASCII bytes of `text`. */
export function signText(k: SigningKey, text: string): Buffer {
  return sign(null, Buffer.from(text, 'ascii'), k.key)
}
