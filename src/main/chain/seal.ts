// HMAC-SHA256(key, prev_hash ‖ canonical_hash), the chain's seal (reference §3.2), computed with two
// one-shot `crypto.hash` calls over preallocated pads: per row this avoids creating an Hmac object,
// which dominates the naive loop. Equivalence with `createHmac` is a test.
import { createHash, createHmac, hash as oneShotHash } from 'node:crypto'

const BLOCK = 64

export interface Sealer {
  /** Lowercase hex HMAC of the ASCII concatenation prev ‖ canonical. */
  seal(prev: string, canonical: string): string
}

export function makeSealer(key: Buffer): Sealer {
  const k = key.length > BLOCK ? createHash('sha256').update(key).digest() : key
  // 64 bytes of slack after the message so each write below has room for more than 64 bytes.
  const scratch = Buffer.alloc(BLOCK + 128 + 64)
  const inner = scratch.subarray(0, BLOCK + 128)
  const outer = Buffer.alloc(BLOCK + 32)
  for (let i = 0; i < BLOCK; i++) {
    const b = k[i] ?? 0
    inner[i] = b ^ 0x36
    outer[i] = b ^ 0x5c
  }
  return {
    seal(prev: string, canonical: string): string {
      // The fast path needs the reference's shape: two 64-character ASCII strings. With room for
      // more, a 64-character string writes exactly 64 UTF-8 bytes only if it is ASCII, so the
      // write is the check (a JS loop over the 128 characters cost more than both hash calls).
      if (
        prev.length === 64 &&
        canonical.length === 64 &&
        scratch.write(prev, BLOCK, 'utf8') === 64 &&
        scratch.write(canonical, BLOCK + 64, 'utf8') === 64
      ) {
        // The inner digest crosses as a 32-character latin1 string: a Buffer result costs more
        // than the hash itself (docs/performance.md, "Verify").
        outer.write(oneShotHash('sha256', inner, 'binary'), BLOCK, 'latin1')
        return oneShotHash('sha256', outer, 'hex')
      }
      return createHmac('sha256', key)
        .update(prev + canonical, 'utf8')
        .digest('hex')
    },
  }
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
