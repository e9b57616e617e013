// HMAC-SHA256(key, prev_hash ‖ canonical_hash), the chain's seal (reference §3.2), and the SHA-256
// hex of a body: both are node:crypto's own (`createHmac`, one-shot `crypto.hash`). Until stop 37 the
// seal was built here from two `crypto.hash` calls over precomputed pads (≈0.85 µs a row against
// `createHmac`'s ≈1.7 µs); the project's rule is that cryptography is never written here, so the
// TypeScript path pays the difference. The native prover (chain/addon) seals with OpenSSL's HMAC.
import { createHmac, hash as oneShotHash } from 'node:crypto'

export interface Sealer {
  /** Lowercase hex HMAC of the UTF-8 concatenation prev ‖ canonical. */
  seal(prev: string, canonical: string): string
}

export function makeSealer(key: Buffer): Sealer {
  return { seal: (prev, canonical) => hmacHex(key, prev, canonical) }
}

export function hmacHex(key: Buffer, prev: string, canonical: string): string {
  return createHmac('sha256', key)
    .update(prev + canonical, 'utf8')
    .digest('hex')
}

export function sha256Hex(data: Buffer | string): string {
  return oneShotHash('sha256', data, 'hex')
}

export const GENESIS_HASH = '0'.repeat(64)
