// Ed25519 keys as Python BIJOTEL keeps them (reference §4.8, §9; `bijotel.crypto.ed25519`): the
// private key as an unencrypted PKCS#8 PEM, the public key as an SPKI PEM, and the fingerprint as
// the first 16 hex of SHA-256 over the raw 32-byte public key (RFC 8032 §5.1.5's encoding). Node's
// OpenSSL writes the same DER and the same PEM layout (64-column base64) as Python's cryptography.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto'
import { readClientFile, type OpenPolicy } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { pemKeyProblem, verifyStrict } from '../chain/ed25519-strict'

export interface Ed25519Pair {
  privatePem: string
  publicPem: string
}

export function generateEd25519(): Ed25519Pair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  })
  return { privatePem: privateKey, publicPem: publicKey }
}

/** The raw 32-byte public key (the last 32 bytes of its 44-byte SPKI DER, RFC 8410 §4). */
export function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ type: 'spki', format: 'der' })
  return Buffer.from(der.subarray(der.length - 32))
}

/** First 16 hex of SHA-256(raw public key), as `public_key_fingerprint` computes it. */
export function fingerprintOf(key: KeyObject): string {
  return createHash('sha256').update(rawPublicKey(key)).digest('hex').slice(0, 16)
}

/** A public key from its raw 32 bytes (base64 in a signature block). */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32)
    throw new AuditError('bad_argument', `an Ed25519 public key is 32 bytes, got ${raw.length}`)
  // SPKI prefix of an Ed25519 key: SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (33) } (RFC 8410 §4).
  const prefix = Buffer.from('302a300506032b6570032100', 'hex')
  return createPublicKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'spki' })
}

/** A PEM key is a few hundred bytes; anything this large is not one. */
export const MAX_KEY_FILE_BYTES = 64 * 1024

/** A key file, read once through the one client-file open (no FIFO, device or oversized file). */
function readKeyFile(path: string, what: string, policy?: OpenPolicy): string {
  return readClientFile(path, {
    label: what,
    maxBytes: MAX_KEY_FILE_BYTES,
    ...(policy ? { policy } : {}),
  }).toString('utf8')
}

/** The signing key of `--sign-key PEM`: an Ed25519 private key (PKCS#8 PEM), else one line. */
export function loadPrivateKey(path: string): KeyObject {
  const pem = readKeyFile(path, 'private key')
  const problem = pemKeyProblem(pem, 'private')
  if (problem !== null) throw new AuditError('bad_argument', `invalid private key PEM ${path}: ${problem}`)
  let key: KeyObject
  try {
    key = createPrivateKey({ key: pem, format: 'pem' })
  } catch (e) {
    throw new AuditError('bad_argument', `invalid private key PEM ${path}: ${oneLine(e)}`)
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new AuditError(
      'bad_argument',
      `private key is not Ed25519 (got ${key.asymmetricKeyType ?? 'unknown'}): ${path}`,
    )
  return key
}

/** The auditor's copy of the public key (`--public-key PEM`, SPKI); a private key PEM is taken too. */
export function loadPublicKey(path: string): KeyObject {
  return publicKeyFromPem(readKeyFile(path, 'public key'), path)
}

export function signEd25519(key: KeyObject, data: Buffer): Buffer {
  return sign(null, data, key)
}

/**
 * Whether `signature` is a valid Ed25519 signature of `data` under `key`, strictly (small-order
 * keys and R, non-canonical keys and S refused: ../chain/ed25519-strict); never throws.
 */
export function verifyEd25519(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  return verifyStrict(key, data, signature) === null
}

/**
 * A public key given as PEM text (SPKI; a private key's public half is taken too); `path`, the file
 * it was read from, is named in the refusals.
 */
export function publicKeyFromPem(pem: string, path?: string): KeyObject {
  const at = path === undefined ? '' : ` ${path}`
  const problem = pemKeyProblem(pem, 'public')
  if (problem !== null) throw new AuditError('bad_argument', `invalid public key PEM${at}: ${problem}`)
  let key: KeyObject
  try {
    key = createPublicKey({ key: pem, format: 'pem' })
  } catch (e) {
    throw new AuditError('bad_argument', `invalid public key PEM${at}: ${oneLine(e)}`)
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new AuditError(
      'bad_argument',
      `public key is not Ed25519 (got ${key.asymmetricKeyType ?? 'unknown'})${path === undefined ? '' : `: ${path}`}`,
    )
  return key
}
