// Ed25519 verified strictly (RFC 8032 §5.1.7 plus what libsodium's crypto_sign_verify_detached
// adds). Node's crypto (OpenSSL) checks the cofactorless equation [S]B = R + [k]A, which a
// small-order public key A with R = identity and S = 0 satisfies for every message: a "signature"
// anyone can make. So before the equation is asked of Node, the encodings are checked — no curve
// arithmetic here, only comparisons with published lists (libsodium, crypto_sign/ed25519/ref10/
// open.c and ed25519_ref10.c: ge25519_is_canonical, ge25519_has_small_order, sc25519_is_canonical):
// - A must be a canonical encoding: its y coordinate (the 255 low bits, little-endian) below
//   p = 2^255 − 19 (RFC 8032 §5.1.3 step 1 says decoding fails otherwise);
// - A must not be one of the 8 points of small order, whatever its sign bit (libsodium's list of
//   their y encodings: 0, 1, the two order-8 values, p−1, and p and p+1, the non-canonical
//   encodings of 0 and 1);
// - R (the signature's first 32 bytes) must not be of small order either (same list);
// - S (the last 32 bytes, little-endian) must be below the group order L (RFC 8032 §5.1.7 step 1).
import { createPublicKey, verify, type KeyObject } from 'node:crypto'

/** y encodings (sign bit cleared) of the small-order points, as libsodium lists them. */
export const SMALL_ORDER_ENCODINGS: readonly string[] = [
  '0000000000000000000000000000000000000000000000000000000000000000', // y = 0 (order 4)
  '0100000000000000000000000000000000000000000000000000000000000000', // y = 1, the identity (order 1)
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p − 1 (order 2)
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p, i.e. 0 (order 4)
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 1, i.e. 1 (order 1)
]
const SMALL = new Set(SMALL_ORDER_ENCODINGS)

const P = 2n ** 255n - 19n
/** The order of the base point (RFC 8032 §5.1). */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n

function littleEndian(b: Buffer): bigint {
  let v = 0n
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!)
  return v
}

/** The point's encoding without its sign bit (the x parity in bit 255). */
function yBytes(point: Buffer): Buffer {
  const y = Buffer.from(point)
  y[31] = y[31]! & 0x7f
  return y
}

export function hasSmallOrder(point: Buffer): boolean {
  return SMALL.has(yBytes(point).toString('hex'))
}

export function isCanonicalPoint(point: Buffer): boolean {
  return littleEndian(yBytes(point)) < P
}

/** Why this public key cannot sign anything that counts, or null. */
export function publicKeyProblem(raw: Buffer): string | null {
  if (raw.length !== 32) return `an Ed25519 public key is 32 bytes, not ${raw.length}`
  if (hasSmallOrder(raw))
    return 'the public key is a point of small order (anyone can make signatures that hold against it)'
  if (!isCanonicalPoint(raw))
    return 'the public key is not canonically encoded (its y coordinate is not below 2^255-19)'
  return null
}

/** Why this signature is refused before its equation is checked, or null. */
export function signatureProblem(sig: Buffer): string | null {
  if (sig.length !== 64) return `an Ed25519 signature is 64 bytes, not ${sig.length}`
  if (littleEndian(sig.subarray(32)) >= L)
    return 'the signature is not canonical (S is not below the group order L)'
  if (hasSmallOrder(sig.subarray(0, 32))) return 'the signature\u2019s R is a point of small order'
  return null
}

/**
 * Why a key file's text is not one key, or null. OpenSSL reads the first PEM block and ignores the
 * rest, so a file of two keys would be checked against one while a reader of the file may take the
 * other for the signer's: the auditor's copy of a key must name one key.
 */
export function pemBlocksProblem(pem: string): string | null {
  const blocks = pem.match(/-----BEGIN [^-\r\n]*-----/g)?.length ?? 0
  return blocks > 1 ? `the file holds ${blocks} PEM blocks; a key file must hold exactly one key` : null
}

const KEYGEN = 'an unencrypted PKCS#8 Ed25519 key (BEGIN PRIVATE KEY), as bijotel keygen writes it'

/**
 * Why a key file's text is not the one key `want` needs, named in words (OpenSSL says "DECODER
 * routines::unsupported" of an empty file, a DER file and a public key given to sign alike), or
 * null; labels OpenSSL reads itself (RSA PRIVATE KEY, EC PRIVATE KEY) are left to it. RFC 7468 §5
 * names the labels: PRIVATE KEY (PKCS#8, whose public half a public key file may hold too),
 * ENCRYPTED PRIVATE KEY, PUBLIC KEY (SPKI).
 */
export function pemKeyProblem(pem: string, want: 'private' | 'public'): string | null {
  if (pem.length === 0) return 'the file is empty (0 bytes), not a PEM key'
  const label = /-----BEGIN ([^-\r\n]*)-----/.exec(pem)?.[1]
  if (label === undefined)
    return 'not PEM text (no "-----BEGIN" line): a key in DER or another form is not read here'
  const blocks = pemBlocksProblem(pem)
  if (blocks !== null) return blocks
  if (label === 'ENCRYPTED PRIVATE KEY') return `an encrypted private key: give ${KEYGEN}`
  if (want === 'private' && label === 'PUBLIC KEY')
    return `the file holds a public key (BEGIN PUBLIC KEY); signing needs the private key: ${KEYGEN}`
  return null
}

/** The raw 32 bytes of an Ed25519 public key object (RFC 8037's JWK `x`). */
export function rawKeyBytes(key: KeyObject): Buffer {
  const k = key.type === 'private' ? createPublicKey(key) : key
  return Buffer.from(k.export({ format: 'jwk' }).x!, 'base64url')
}

/**
 * Whether `sig` is a valid Ed25519 signature of `data` under `key`: null when it is, else why not
 * (a strictness rule above, or the equation Node's crypto checks). Never throws.
 */
export function verifyStrict(key: KeyObject, data: Buffer, sig: Buffer): string | null {
  try {
    const problem = publicKeyProblem(rawKeyBytes(key)) ?? signatureProblem(sig)
    if (problem !== null) return problem
    return verify(null, data, key, sig) ? null : 'the signature does not match'
  } catch (e) {
    return `the signature cannot be checked (${(e as Error).message.split('\n')[0]})`
  }
}
