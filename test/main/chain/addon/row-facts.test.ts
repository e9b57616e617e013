// The native row facts against the TypeScript they stand in for: whole passes over every fixture
// with and without the addon, then single rows with seeded changes of their timestamp, hash and
// body bytes and serial types, and timestamps built for the floor division's edge cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyFacts, rowBodyFacts, rowFacter } from '../../../../src/main/chain/body-scan'
import { CellReader } from '../../../../src/main/chain/sqlite/cell'
import { hashFingerprint } from '../../../../src/main/chain/columns/fingerprint'
import { leafColumns } from '../../../../src/main/chain/direct/page-columns'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { epochSecond } from '../../../../src/main/integrity/timestamps'
import { dbPath, fingerprintFolder, fixtureNames } from '../../testing/fixtures'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import {
  F,
  FACTS_BY_TYPESCRIPT,
  factsAddon,
  type RowFacter,
} from '../../../../src/main/chain/addon/row-facts'

const available = factsAddon() !== null
const WANTED = { facts: true, integrity: true }

function withNative<T>(on: boolean, f: () => T): T {
  if (on) delete process.env['BIJOTEL_NATIVE']
  else process.env['BIJOTEL_NATIVE'] = '0'
  try {
    return f()
  } finally {
    delete process.env['BIJOTEL_NATIVE']
  }
}

/** What the native call must match for one row: the TypeScript path's values. */
function typeScriptFacts(c: CellReader, k: { ts: number; body: number; ch: number }) {
  const ts = c.isInt(k.ts) ? c.intBig(k.ts)! : null
  return {
    ts,
    second: ts === null ? null : Number(epochSecond(ts)),
    fingerprint: hashFingerprint(c, k.ch),
    body: bodyFacts(c.castBlob(k.body) ?? Buffer.alloc(0)),
  }
}

function nativeFacts(f: RowFacter, c: CellReader, k: { body: number }) {
  const verdict = f.facts(c.buf, c.types, c.offs)
  const o = f.out
  const ts = o[F.TS] === 1 ? BigInt.asIntN(64, (BigInt(o[F.HI]!) << 32n) | BigInt(o[F.LO]!)) : null
  return {
    ts,
    second: o[F.TS] === 1 ? o[F.SECOND]! : null,
    fingerprint: o[F.FP] === 1 ? o[F.FP_VALUE]! : null,
    body: verdict === FACTS_BY_TYPESCRIPT ? null : rowBodyFacts(f, verdict, c.buf, () => c.castBlob(k.body)!),
  }
}

describe.skipIf(!available)('native row facts equal the TypeScript ones', () => {
  let before: Map<string, string>
  beforeAll(() => {
    before = fingerprintFolder()
  })
  afterAll(() => expect(fingerprintFolder()).toEqual(before))

  for (const name of fixtureNames()) {
    it(`${name}: a whole pass, with and without the addon`, () => {
      const chain = openDirect(dbPath(name))
      const pass = (native: boolean) =>
        withNative(native, () => {
          const scanner = new RowScanner(layoutOf(chain))
          try {
            return leafColumns(scanner, 0, chain.leaves.pages.length, 16, WANTED, {})
          } finally {
            scanner.close()
          }
        })
      const withAddon = pass(true)
      expect(withAddon.rows).toBeGreaterThan(0)
      expect(withAddon).toEqual(pass(false))
    })
  }

  it('single rows with seeded changes of their timestamp, hash and body', () => {
    const rng = (() => {
      let s = 0x2545f491
      return (n: number) => {
        s ^= s << 13
        s ^= s >>> 17
        s ^= s << 5
        return (s >>> 0) % n
      }
    })()
    const tally = { cases: 0, tsNative: 0, fpNative: 0, bodyNative: 0 }
    for (const name of ['clean', 'odd-non-json-body', 'ts-column-edit', 'provider-shift']) {
      const chain = openDirect(dbPath(name))
      const scanner = new RowScanner(layoutOf(chain))
      const k = {
        ts: scanner.col('timestamp_ns'),
        body: scanner.col('canonical_body'),
        ch: scanner.col('canonical_hash'),
      }
      const facter = rowFacter(k.ts, k.body, k.ch, scanner.pageLayout)!
      try {
        scanner.scan(0, chain.leaves.pages.length, (c) => {
          const original = c.buf
          const types = c.types.slice()
          for (let n = 0; n < 12; n++) {
            const buf = Buffer.from(original)
            const target = [k.ts, k.ch, k.body, k.body][rng(4)]!
            const t = c.types[target]!
            const size = t >= 12 ? (t - 12) >> 1 : t <= 4 ? t : t === 5 ? 6 : t === 6 ? 8 : 0
            if (size > 0) {
              const at = c.offs[target]! + (target === k.body ? Math.max(0, size - 1 - rng(300)) : rng(size))
              buf[at] = [0x22, 0x5c, 0x80, 0xe2, 0xff, 0x30, 0x7d, 0x2c, rng(256)][rng(9)]!
            }
            c.buf = buf
            if (rng(5) === 0) {
              // Another serial type for the timestamp or the hash, the offsets unchanged.
              const col = rng(2) === 0 ? k.ts : k.ch
              c.types[col] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 15, 27][rng(13)]!
            }
            const want = typeScriptFacts(c, k)
            const got = nativeFacts(facter, c, k)
            const where = `${name} seq ${c.rowid} case ${n}`
            if (got.ts !== null) {
              tally.tsNative++
              expect([got.ts, got.second], where).toEqual([want.ts, want.second])
            } else expect(c.isInt(k.ts), where).toBe(false)
            if (got.fingerprint !== null) {
              tally.fpNative++
              expect(got.fingerprint, where).toBe(want.fingerprint)
            }
            if (got.body !== null) {
              tally.bodyNative++
              expect(got.body, where).toEqual(want.body)
            }
            tally.cases++
            c.buf = original
            c.types.set(types)
          }
          return true
        })
      } finally {
        scanner.close()
      }
    }
    // The native path answered most cases itself, and the fallbacks were reached too.
    expect(tally.tsNative).toBeGreaterThan(tally.cases * 0.7)
    expect(tally.tsNative).toBeLessThan(tally.cases)
    expect(tally.fpNative).toBeGreaterThan(tally.cases * 0.7)
    expect(tally.fpNative).toBeLessThan(tally.cases)
    expect(tally.bodyNative).toBeGreaterThan(tally.cases * 0.9)
  })

  it('epoch seconds of timestamps at the edges of floor division, in every integer width', () => {
    const facter = rowFacter(0, 1, 2, { ncols: 3, usable: 4096 })!
    const values = [
      0n,
      1n,
      -1n,
      999_999_999n,
      1_000_000_000n,
      -999_999_999n,
      -1_000_000_000n,
      -1_000_000_001n,
      1_762_157_515_425_018_468n,
      -1_762_157_515_425_018_468n,
      9_223_372_036_854_775_807n,
      -9_223_372_036_854_775_808n,
      2n ** 53n + 1n,
      127n,
      -128n,
      32767n,
      -32768n,
      8_388_607n,
      -8_388_608n,
      2_147_483_647n,
      -2_147_483_648n,
      140_737_488_355_327n,
      -140_737_488_355_328n,
    ]
    const width = (v: bigint): number => {
      for (const [t, w] of [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 6],
      ] as const)
        if (v >= -(2n ** BigInt(8 * w - 1)) && v < 2n ** BigInt(8 * w - 1)) return t
      return 6
    }
    const bytes = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8 } as Record<number, number>
    for (const v of values) {
      for (const type of [width(v), 6]) {
        const w = bytes[type]!
        const b8 = Buffer.alloc(8)
        b8.writeBigInt64BE(v)
        const body = Buffer.from('{"attributes":{"gen_ai.system":"s"}}')
        const hash = Buffer.from('ab'.repeat(32))
        const record = Buffer.concat([b8.subarray(8 - w), body, hash])
        const c = Object.create(CellReader.prototype) as CellReader
        Object.assign(c, {
          buf: record,
          types: Int32Array.of(type, 13 + 2 * body.length, 13 + 2 * hash.length),
          offs: Int32Array.of(0, w, w + body.length),
          rowid: 1,
          rowidBig: null,
        })
        const k = { ts: 0, body: 1, ch: 2 }
        expect(nativeFacts(facter, c, k), `${v} as type ${type}`).toEqual({
          ...typeScriptFacts(c, k),
          ts: v,
          second: Number(epochSecond(v)),
        })
      }
    }
  })
})
