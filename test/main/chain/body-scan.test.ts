// The byte scanner must give exactly what JSON.parse + providerOf/modelOf give, on real bodies and
// on many thousands of mangled ones.
import { isUtf8 } from 'node:buffer'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { attributesOf, modelOf, parseBody, providerOfBytes } from '../../../src/main/chain/body'
import { nativeAddon } from '../../../src/main/chain/addon/row-prover'
import { bodyFacts, useBodyScanner, type BodyScannerKind } from '../../../src/main/chain/body-scan'
import { FIXTURES, withSqliteCopy } from '../testing/fixtures'

function slow(body: Buffer): { provider: string; model: string | null; replay: boolean } {
  const parsed = parseBody(body)
  const replay = typeof attributesOf(parsed)['bijotel.replay.output_hash'] === 'string'
  return { provider: providerOfBytes(body, parsed), model: modelOf(parsed), replay }
}

function fixtureBodies(): Buffer[] {
  const out: Buffer[] = []
  for (const f of readdirSync(FIXTURES).filter((f) => f.endsWith('.db') && !f.startsWith('bad-'))) {
    withSqliteCopy(join(FIXTURES, f), (db) => {
      for (const b of db.prepare('SELECT CAST(canonical_body AS BLOB) FROM chain').pluck().all())
        if (Buffer.isBuffer(b)) out.push(b)
    })
  }
  return out
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SNIPPETS = [
  '"gen_ai.provider.name":',
  '"gen_ai.system":',
  '"gen_ai.request.model":',
  '"bijotel.replay.output_hash":',
  '"attributes":',
  '\\u0067',
  '\\"',
  '{}',
  '[]',
  '0',
  '-0',
  '1e3',
  '01',
  'true',
  'false',
  'null',
  ' ',
  '\n',
  '\u00e9',
  '"',
  ',',
  ':',
  '{',
  '}',
  '\x01',
]

function mangle(body: Buffer, r: () => number): Buffer {
  const s = body.toString('latin1')
  const at = Math.floor(r() * (s.length + 1))
  const op = Math.floor(r() * 4)
  if (op === 0) return Buffer.from(s.slice(0, at), 'latin1')
  if (op === 1) return Buffer.from(s.slice(0, at) + s.slice(at + 1 + Math.floor(r() * 8)), 'latin1')
  const snip = SNIPPETS[Math.floor(r() * SNIPPETS.length)]!
  if (op === 2)
    return Buffer.concat([
      Buffer.from(s.slice(0, at), 'latin1'),
      Buffer.from(snip),
      Buffer.from(s.slice(at), 'latin1'),
    ])
  const flipped = Buffer.from(body)
  if (flipped.length > 0) flipped[Math.min(at, flipped.length - 1)] = Math.floor(r() * 256)
  return flipped
}

const HANDMADE = [
  '{"attributes":{"gen_ai.provider.name":"a","gen_ai.provider.name":"b"}}',
  '{"attributes":{"gen_ai.provider.name":""},"attributes":{"gen_ai.system":"x"}}',
  '{"attributes":{"gen_ai.provider.name":"",  "gen_ai.system" : 7}}',
  '{"attributes":{"gen_ai.provider.name":0,"gen_ai.system":-0.0}}',
  '{"attributes":{"gen_ai.provider.name":1.50E+1}}',
  '{"attributes":{"gen_ai.provider.name":{}}}',
  '{"attributes":{"gen_ai.provider.name":[ ]}}',
  '{"attributes":{"gen_ai.provider.name":[0]}}',
  '{"attributes":{"gen_ai.provider.name":true}}',
  '{"attributes":{"gen_ai.provider.name":false,"gen_ai.system":null}}',
  '{"attributes":{"gen_ai.provider.name":"a\\"b\\u00e9"}}',
  '{"attributes":{"gen_ai.provider\\u002ename":"esc"}}',
  '{"attr\\u0069butes":{"gen_ai.provider.name":"esc"}}',
  '{"attributes":{"x":{"gen_ai.provider.name":"nested"}}}',
  '{"attributes":"gen_ai.provider.name"}',
  '{"attributes":{"gen_ai.request.model":"m","bijotel.replay.model_version":"v"}}',
  '{"attributes":{"bijotel.replay.output_hash":"ab"}}',
  '{"attributes":{"bijotel.replay.output_hash":7}}',
  '{"attributes":{"x":"\\"bijotel.replay.output_hash\\":"}}',
  '{"attributes":{"gen_ai.response.model":"","gen_ai.request.model":"\\u0000"}}',
  '[{"attributes":{"gen_ai.provider.name":"in-array"}}]',
  '{"attributes":{"gen_ai.provider.name":"a"}} x',
  '\ufeff{"attributes":{"gen_ai.provider.name":"bom"}}',
  '{"attributes":{"gen_ai.provider.name":"a"},}',
  '{"attributes":{"gen_ai.provider.name":"é"}}',
  '{"attributes":{"gen_ai.provider.name":"tab\there"}}',
  ' \t\r\n{"attributes":{"gen_ai.system":"ws"}} \n',
  '"just a string"',
  '',
]

// Every scanner through the whole corpus: the native one (skipped only where the addon is not built
// and not required) and none (JSON.parse itself, the fallback where the addon is absent).
const KINDS: BodyScannerKind[] = ['native', 'json']
const nativeMissing = nativeAddon() === null && process.env['BIJOTEL_REQUIRE_NATIVE'] !== '1'

describe.each(KINDS)('bodyFacts agrees with JSON.parse, %s scanner', (kind) => {
  beforeAll(() => {
    if (kind === 'native' && nativeMissing) return
    expect(useBodyScanner(kind)).toBe(kind)
  })
  afterAll(() => {
    useBodyScanner()
  })
  if (kind === 'native' && nativeMissing) {
    it.skip('native addon not built (scripts/setup.sh builds it)', () => {})
    return
  }
  const bodies = fixtureBodies()
  it('on every fixture body', () => {
    expect(bodies.length).toBeGreaterThan(500)
    for (const b of bodies) expect(bodyFacts(b)).toEqual(slow(b))
  })
  it('on hand-made edge cases', () => {
    for (const s of HANDMADE) expect(bodyFacts(Buffer.from(s)), s).toEqual(slow(Buffer.from(s)))
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"attributes":{"gen_ai.system":"'),
      Buffer.from([0xc3]),
      Buffer.from('"}}'),
    ])
    expect(bodyFacts(invalidUtf8)).toEqual(slow(invalidUtf8))
  })
  it('on every class of UTF-8 sequence, valid and not, at every offset of an 8-byte word', () => {
    // The native scanner checks UTF-8 itself, eight ASCII bytes at a time: it must be Node's isUtf8.
    const sequences = [
      [0xc2, 0x80],
      [0xdf, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xee, 0x80, 0x80],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf], // valid
      [0x80],
      [0xbf],
      [0xc0, 0x80],
      [0xc1, 0xbf],
      [0xc2],
      [0xc2, 0x41],
      [0xe0, 0x80, 0x80],
      [0xe0, 0x9f, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0xe1, 0x80],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80, 0x80, 0x80],
      [0xf0, 0x90, 0x80],
      [0xff],
      [0xfe],
    ]
    let valid = 0
    for (const seq of sequences)
      for (let pad = 0; pad < 9; pad++)
        for (const after of ['"}}', '']) {
          const b = Buffer.concat([
            Buffer.from(`{"attributes":{"gen_ai.system":"${'a'.repeat(pad)}`),
            Buffer.from(seq),
            Buffer.from(after),
          ])
          if (after !== '' && isUtf8(b)) valid++
          expect(bodyFacts(b), `${seq.map((x) => x.toString(16)).join(' ')} after ${pad}`).toEqual(slow(b))
        }
    expect(valid).toBe(7 * 9)
  })
  it('on 30 000 mangled bodies', () => {
    const r = rng(7)
    const seeds = [...bodies.slice(0, 50), ...HANDMADE.map((s) => Buffer.from(s))]
    let differentFromSeed = 0
    for (let i = 0; i < 30_000; i++) {
      let b = seeds[Math.floor(r() * seeds.length)]!
      const rounds = 1 + Math.floor(r() * 3)
      for (let k = 0; k < rounds; k++) b = mangle(b, r)
      const want = slow(b)
      if (want.provider === 'unknown') differentFromSeed++
      expect(bodyFacts(b), b.toString('latin1')).toEqual(want)
    }
    // The mangling must actually break bodies, or the test proves little.
    expect(differentFromSeed).toBeGreaterThan(3000)
  })

  it('with a special byte at every offset of a 16-byte SIMD block', () => {
    // The native scanner skips string content 16 bytes at a time: a quote, backslash or control byte
    // must be seen wherever it falls in a block, and near the end of the body.
    const specials = ['\\"', '\\n', '\\u00e9', '\\x', '\x01', '\x1f', '\x7f', '\u00e9', '"', '\\']
    let checked = 0
    for (let len = 0; len <= 40; len++)
      for (let pos = 0; pos <= len; pos++)
        for (const sp of specials) {
          const value = 'a'.repeat(pos) + sp + 'b'.repeat(len - pos)
          for (const text of [
            `{"attributes":{"gen_ai.system":"${value}"}}`,
            `{"attributes":{"gen_ai.provider.name":"p","x":"${value}`,
          ]) {
            const b = Buffer.from(text)
            expect(bodyFacts(b), text).toEqual(slow(b))
            checked++
          }
        }
    expect(checked).toBeGreaterThan(17_000)
  })
  it('on bodies of up to 20 MB, and on small ones after them', () => {
    const big = (filler: string, tail: string): Buffer =>
      Buffer.from(`{"attributes":{"x":"${filler}","gen_ai.provider.name":"after-${tail}"}}`)
    const cases = [
      big('y'.repeat(200_000), 'a'),
      big('y'.repeat(20_000_000), 'b'),
      big('y'.repeat(1_000_000) + '\x01', 'c'),
      big('y'.repeat(3_000_000) + '\\"' + 'z'.repeat(17), 'd'),
      Buffer.from('{"attributes":{"gen_ai.system":"small"}}'),
      big('y'.repeat(100), 'e'),
    ]
    const got = cases.map((b) => bodyFacts(b).provider)
    expect(got).toEqual(cases.map((b) => slow(b).provider))
    expect(got).toEqual(['after-a', 'after-b', 'unknown', 'after-d', 'small', 'after-e'])
  })
  it('at the nesting limit, where bodies go to JSON.parse', () => {
    for (const depth of [1, 254, 255, 256, 257, 600, 5000]) {
      const deep = '['.repeat(depth) + ']'.repeat(depth)
      for (const text of [
        `{"attributes":{"gen_ai.system":"s","deep":${deep}}}`,
        `{"attributes":{"gen_ai.system":"s","deep":${deep.slice(0, -1)}}}`,
        `{"attributes":{"gen_ai.system":"s"},"deep":${deep}}`,
      ]) {
        const b = Buffer.from(text)
        expect(bodyFacts(b), `${depth}: ${text.slice(0, 60)}`).toEqual(slow(b))
      }
    }
  })
})
