// Ed25519 verified strictly (src/main/chain/ed25519-strict.ts): each rule with the vectors that trip
// it, generated over the published list of small-order encodings (libsodium's, both sign bits),
// every non-canonical y (p … 2^255−1), and S at and past the group order. Node's crypto is shown
// to accept the trivial forgery, so the rules are what refuse it.
import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  hasSmallOrder,
  L,
  publicKeyProblem,
  signatureProblem,
  SMALL_ORDER_ENCODINGS,
  verifyStrict,
} from '../../../src/main/chain/ed25519-strict'

const SPKI = Buffer.from('302a300506032b6570032100', 'hex')
const keyOf = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' })

function le(n: bigint, bytes = 32): Buffer {
  const b = Buffer.alloc(bytes)
  for (let i = 0; i < bytes; i++) {
    b[i] = Number(n & 0xffn)
    n >>= 8n
  }
  return b
}
function fromLe(b: Buffer): bigint {
  let v = 0n
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!)
  return v
}

/** Every small-order encoding, with its sign bit clear and set (14 of them: 8 points, 6 aliases). */
const SMALL_ORDER_VECTORS = SMALL_ORDER_ENCODINGS.flatMap((hex) => {
  const clear = Buffer.from(hex, 'hex')
  const set = Buffer.from(clear)
  set[31] = set[31]! | 0x80
  return [clear, set]
})
const IDENTITY = Buffer.from(SMALL_ORDER_ENCODINGS[1]!, 'hex')
const TRIVIAL_SIG = Buffer.concat([IDENTITY, Buffer.alloc(32)])
const P = 2n ** 255n - 19n

const honest = generateKeyPairSync('ed25519')
const msg = Buffer.from('the report, canonical')
const goodSig = sign(null, msg, honest.privateKey)

describe('Ed25519 strictness', () => {
  it('takes an honest signature, and refuses it on another message', () => {
    expect(verifyStrict(honest.publicKey, msg, goodSig)).toBeNull()
    expect(verifyStrict(honest.publicKey, Buffer.from('other'), goodSig)).toBe('the signature does not match')
  })

  it('rule "small-order public key": the identity key with R = identity, S = 0 — Node accepts it for any message, we refuse', () => {
    const key = keyOf(IDENTITY)
    for (const m of ['Chain VALID', '', 'x'.repeat(1000)]) {
      expect(verify(null, Buffer.from(m), key, TRIVIAL_SIG)).toBe(true)
      expect(verifyStrict(key, Buffer.from(m), TRIVIAL_SIG)).toMatch(/public key is a point of small order/)
    }
  })

  it('rule "small-order public key": every encoding on the list, both sign bits, whatever Node says', () => {
    let forgeries = 0
    for (const raw of SMALL_ORDER_VECTORS) {
      expect(hasSmallOrder(raw)).toBe(true)
      expect(publicKeyProblem(raw)).toMatch(/small order/)
      let key: KeyObject | null = null
      try {
        key = keyOf(raw)
      } catch {
        continue // OpenSSL refused the encoding itself
      }
      for (let i = 0; i < 16; i++) {
        const m = Buffer.from(`message ${i}`)
        let nodeSays = false
        try {
          nodeSays = verify(null, m, key, TRIVIAL_SIG)
        } catch {
          nodeSays = false
        }
        if (nodeSays) forgeries++
        expect(verifyStrict(key, m, TRIVIAL_SIG)).toMatch(/small order/)
      }
    }
    // The trivial signature is accepted by Node for more than the identity alone (orders 2, 4, 8).
    expect(forgeries).toBeGreaterThan(16)
  })

  it('rule "non-canonical public key": every y from p to 2^255−1, both sign bits', () => {
    let n = 0
    for (let y = P; y < 2n ** 255n; y++) {
      for (const sign of [0, 0x80]) {
        const raw = le(y)
        raw[31] = raw[31]! | sign
        const why = publicKeyProblem(raw)
        // p and p+1 are on the small-order list (aliases of 0 and 1); the rest are refused as non-canonical.
        expect(why).toMatch(y <= P + 1n ? /small order/ : /not canonically encoded/)
        n++
      }
    }
    expect(n).toBe(38)
    expect(publicKeyProblem(le(P - 2n))).toBeNull() // the largest canonical y that is not small order
  })

  it('rule "non-canonical S": S = L, S + L of a good signature, S = 2^256−1', () => {
    const S = fromLe(goodSig.subarray(32))
    for (const bad of [L, S + L, 2n ** 256n - 1n, L + 1n]) {
      const sig = Buffer.concat([goodSig.subarray(0, 32), le(bad)])
      expect(signatureProblem(sig)).toBe('the signature is not canonical (S is not below the group order L)')
      expect(verifyStrict(honest.publicKey, msg, sig)).toMatch(/S is not below/)
    }
    expect(signatureProblem(Buffer.concat([goodSig.subarray(0, 32), le(L - 1n)]))).toBeNull()
  })

  it('rule "small-order R": every encoding on the list as R, both sign bits, under an honest key', () => {
    for (const r of SMALL_ORDER_VECTORS) {
      const sig = Buffer.concat([r, goodSig.subarray(32)])
      expect(signatureProblem(sig)).toMatch(/R is a point of small order/)
      expect(verifyStrict(honest.publicKey, msg, sig)).toMatch(/R is a point of small order/)
    }
  })

  it('lengths: a key of 31/33 bytes and a signature of 63/65 bytes are refused by name', () => {
    expect(publicKeyProblem(Buffer.alloc(31, 9))).toMatch(/32 bytes, not 31/)
    expect(signatureProblem(Buffer.alloc(65, 9))).toMatch(/64 bytes, not 65/)
    expect(verifyStrict(honest.publicKey, msg, goodSig.subarray(0, 63))).toMatch(/64 bytes, not 63/)
  })
})
