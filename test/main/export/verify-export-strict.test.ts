// Issue 38 for exports: an export is read as I-JSON (a duplicate name or a lone surrogate refused,
// naming its byte offset; Python's integer timestamp_ns still taken), and its Ed25519 signature is
// verified strictly: a small-order key with the trivial signature, which Node's crypto accepts, is
// refused by name, as is a small-order R and S >= L; an honest v2 export still verifies.
import { createHmac, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { L, SMALL_ORDER_ENCODINGS } from '../../../src/main/chain/ed25519-strict'
import { GENESIS_HASH } from '../../../src/main/chain/seal'
import { readExport, verifyExportDoc } from '../../../src/main/export/verify-export'
import { scratchDir } from '../reliability/chainkit'

const scratch = scratchDir('export-strict')
afterAll(() => scratch.cleanup())
let n = 0

const SPKI = Buffer.from('302a300506032b6570032100', 'hex')
const pemOf = (raw: Buffer): string => {
  const p = join(scratch.dir, `key-${++n}.pem`)
  const key = createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' })
  writeFileSync(p, key.export({ type: 'spki', format: 'pem' }))
  return p
}
const rawOf = (k: KeyObject): Buffer => Buffer.from(k.export({ format: 'jwk' }).x!, 'base64url')

/** A v2 export with no entries (auditor mode reads only its signature block). */
function v2(publicKey: Buffer, signature: (signed: Buffer) => Buffer): Record<string, unknown> {
  const chainSignature = createHmac('sha256', Buffer.alloc(32, 7))
    .update(`chain:${GENESIS_HASH}:0`)
    .digest('hex')
  return {
    version: '1.0',
    format: 'bijotel-chain-v2',
    created_at: '2026-12-05T00:00:00.000000+00:00',
    entries_count: 0,
    head_hash: GENESIS_HASH,
    chain_signature: chainSignature,
    entries: [],
    ed25519_signature: {
      public_key: publicKey.toString('base64'),
      signature: signature(Buffer.from(chainSignature, 'ascii')).toString('base64'),
      signed_over: 'chain_signature',
      algorithm: 'Ed25519',
    },
  }
}

function le(v: bigint): Buffer {
  const b = Buffer.alloc(32)
  for (let i = 0; i < 32; i++) {
    b[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return b
}

describe('v2 export signatures, strictly', () => {
  const honest = generateKeyPairSync('ed25519')
  const honestPem = pemOf(rawOf(honest.publicKey))

  it('an honest v2 export verifies in auditor mode', () => {
    const doc = v2(rawOf(honest.publicKey), (m) => sign(null, m, honest.privateKey))
    expect(verifyExportDoc(doc, [], honestPem)).toEqual({ ok: true, reason: 'ok' })
  })

  it('every small-order key (both sign bits) with R = identity, S = 0 is refused — Node accepts the identity', () => {
    const identity = Buffer.from(SMALL_ORDER_ENCODINGS[1]!, 'hex')
    const trivial = Buffer.concat([identity, Buffer.alloc(32)])
    const idKey = createPublicKey({ key: Buffer.concat([SPKI, identity]), format: 'der', type: 'spki' })
    expect(verify(null, Buffer.from('any'), idKey, trivial)).toBe(true)
    for (const hex of SMALL_ORDER_ENCODINGS)
      for (const bit of [0, 0x80]) {
        const raw = Buffer.from(hex, 'hex')
        raw[31] = raw[31]! | bit
        let pem: string
        try {
          pem = pemOf(raw)
        } catch {
          continue // OpenSSL refuses to hold this encoding as a key at all
        }
        const r = verifyExportDoc(
          v2(raw, () => trivial),
          [],
          pem,
        )
        expect(r.ok).toBe(false)
        expect(r.reason).toMatch(/^ed25519 signature refused: the public key is a point of small order/)
      }
  })

  it('a small-order R, and S >= L, under the honest key are refused by name', () => {
    const good = (m: Buffer): Buffer => sign(null, m, honest.privateKey)
    for (const hex of SMALL_ORDER_ENCODINGS) {
      const doc = v2(rawOf(honest.publicKey), (m) =>
        Buffer.concat([Buffer.from(hex, 'hex'), good(m).subarray(32)]),
      )
      expect(verifyExportDoc(doc, [], honestPem).reason).toBe(
        'ed25519 signature refused: the signature\u2019s R is a point of small order',
      )
    }
    const doc = v2(rawOf(honest.publicKey), (m) => {
      const s = good(m)
      let S = 0n
      for (let i = 63; i >= 32; i--) S = (S << 8n) | BigInt(s[i]!)
      return Buffer.concat([s.subarray(0, 32), le(S + L)])
    })
    expect(verifyExportDoc(doc, [], honestPem).reason).toBe(
      'ed25519 signature refused: the signature is not canonical (S is not below the group order L)',
    )
  })
})

describe('the signed chain_signature is the one the file shows', () => {
  it('every non-ASCII look-alike of a signed chain_signature (same low bytes) is refused', () => {
    const honest = generateKeyPairSync('ed25519')
    const pem = pemOf(rawOf(honest.publicKey))
    const doc = v2(rawOf(honest.publicKey), (m) => sign(null, m, honest.privateKey))
    const text = doc['chain_signature'] as string
    let cases = 0
    // Each position, each high byte a UTF-16 unit can add over the ASCII character there.
    for (let i = 0; i < text.length; i += 7)
      for (const high of [0x0100, 0x0200, 0x3000, 0xff00]) {
        const forged = text.slice(0, i) + String.fromCharCode(high | text.charCodeAt(i)) + text.slice(i + 1)
        const r = verifyExportDoc({ ...doc, chain_signature: forged }, [], pem)
        expect(r.ok, forged).toBe(false)
        expect(r.reason).toMatch(/^chain_signature is not ASCII text/)
        cases++
      }
    expect(cases).toBeGreaterThan(30)
    expect(verifyExportDoc(doc, [], pem).ok).toBe(true)
  })
})

describe('exports are read as I-JSON', () => {
  const write = (text: string | Buffer): string => {
    const p = join(scratch.dir, `export-${++n}.json`)
    writeFileSync(p, text)
    return p
  }
  const base = JSON.stringify(
    v2(Buffer.alloc(32, 1), () => Buffer.alloc(64)),
    null,
    2,
  )

  it('duplicate names anywhere are refused with their byte offset', () => {
    for (const [from, to] of [
      ['"entries_count": 0,', '"entries_count": 5,\n  "entries_count": 0,'],
      [
        '"format": "bijotel-chain-v2",',
        '"format": "bijotel-chain-v1",\n  "f\\u006frmat": "bijotel-chain-v2",',
      ],
      ['"algorithm": "Ed25519"', '"algorithm": "Ed25519",\n    "algorithm": "Ed25519"'],
    ] as const) {
      const text = base.replace(from, to)
      const r = readExport(write(text))
      expect('error' in r && r.error).toMatch(
        /^JSON parse error: not I-JSON \(RFC 7493\): duplicate member name .* at byte \d+$/,
      )
    }
  })

  it('a lone surrogate and invalid UTF-8 are refused; Python’s integer timestamp_ns is taken', () => {
    expect(readExport(write(base.replace('"1.0"', '"\\ud800"')))).toMatchObject({
      error: expect.stringMatching(/lone surrogate/),
    })
    const bad = Buffer.from(base.replace('"1.0"', '"1.0X"'))
    bad[bad.indexOf('X')] = 0xc0
    expect(readExport(write(bad))).toMatchObject({ error: expect.stringMatching(/invalid UTF-8/) })
    const python = base.replace(
      '"entries": []',
      '"entries": [{"seq": 1, "timestamp_ns": 1762156959108389579}]',
    )
    expect(readExport(write(python))).toHaveProperty('doc')
  })
})
