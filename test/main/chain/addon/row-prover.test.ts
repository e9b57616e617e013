// The native row prover against the JavaScript it replaces: SHA-256 and HMAC against node:crypto,
// and proveRow against the TypeScript fast path's predicate on real records of the fixtures, as
// found and with thousands of seeded single-byte and type changes. Then whole verdicts with and
// without the addon.
import { createHmac, hash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CellReader } from '../../../../src/main/chain/sqlite/cell'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { dbPath, expected, fingerprintFolder, fixtureNames, secretInputs } from '../../testing/fixtures'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { columnsAgreeOnBytes } from '../../../../src/main/verify/record-proof'
import { RowChecker } from '../../../../src/main/verify/partition'
import { verifyPart } from '../../../../src/main/verify/part'
import { verifyRows } from '../../../../src/main/verify/verify'
import { DirectSource, layoutOf } from '../../../../src/main/chain/source/direct-source'
import { WHOLE } from '../../../../src/main/chain/source/row-source'
import { hmacHex, sha256Hex } from '../../../../src/main/chain/seal'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { hasCrypto, nativeAddon, type NativeAddon } from '../../../../src/main/chain/addon/row-prover'

const addon = nativeAddon()
const required = process.env['BIJOTEL_REQUIRE_NATIVE'] === '1'

it('the addon is built where the set-up builds it', () => {
  // scripts/test.sh sets BIJOTEL_REQUIRE_NATIVE: CI must not pass by skipping everything below.
  if (!required && addon === null) {
    console.warn('native addon not built (scripts/setup.sh builds it): its tests are skipped')
    return
  }
  expect(addon).not.toBeNull()
})

class Rng {
  constructor(private s: number) {}
  next(): number {
    // xorshift32
    let x = this.s
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.s = x >>> 0
    return this.s / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
}

describe.skipIf(addon === null)('native SHA-256 and HMAC equal node:crypto', () => {
  const a = addon as NativeAddon
  const rng = new Rng(0x5eed)
  const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => rng.int(256)))

  it("hashes with the host's OpenSSL, found in this process (Node exports it)", () => {
    expect(hasCrypto(a)).toBe(true)
  })

  it('SHA-256: every length 0–300, then up to 5000', () => {
    expect(a.sha256Hex(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    const lengths = [
      ...Array.from({ length: 301 }, (_, i) => i),
      ...Array.from({ length: 40 }, () => rng.int(5000)),
    ]
    for (const n of lengths) {
      const b = bytes(n)
      expect(a.sha256Hex(b), `length ${n}`).toBe(hash('sha256', b, 'hex'))
    }
    // A view at an offset hashes its own bytes, not its buffer's.
    const whole = bytes(200)
    expect(a.sha256Hex(whole.subarray(13, 150))).toBe(hash('sha256', whole.subarray(13, 150), 'hex'))
  })

  it('HMAC for keys of 0–200 bytes, each key state used twice (a reused context keeps its key)', () => {
    for (let k = 0; k <= 200; k += 7) {
      const key = bytes(k)
      const state = a.hmacKey(key)
      for (const msg of [bytes(rng.int(300)), Buffer.alloc(0)])
        expect(a.hmacHex(state, msg), `key ${k}`).toBe(createHmac('sha256', key).update(msg).digest('hex'))
    }
  })

  it('rejects what is not its own input, in one line', () => {
    expect(() => a.sha256Hex('abc' as never)).toThrow('expected a Uint8Array')
    expect(() => a.hmacHex(Buffer.alloc(3), Buffer.alloc(0))).toThrow('expected a key state from hmacKey')
    // Bytes that are not a key state (a raw key) are refused, never taken as a key.
    expect(() => a.hmacHex(Buffer.alloc(32, 7), Buffer.alloc(0))).toThrow('expected a key state from hmacKey')
    expect(() => a.startRun(a.hmacKey(Buffer.alloc(1)), Buffer.alloc(10), new Int32Array(7))).toThrow(
      RangeError,
    )
  })
})

interface Cols {
  body: number
  ch: number
  prev: number
  mac: number
  ts: number
  name: number
  kind: number
}

/** What the TypeScript fast path proves of a row, given the link and the key (the oracle). */
function provenByTypeScript(c: CellReader, k: Cols, link: string, key: Buffer): boolean {
  const ts = c.isInt(k.ts) ? c.intBig(k.ts)!.toString() : null
  if (c.types[k.body]! < 12 || ts === null) return false
  const body = c.castBlob(k.body)!
  if (!columnsAgreeOnBytes(c, body, ts, k.name, k.kind)) return false
  const hex64 = (col: number): string | null => (c.types[col] === 13 + 128 ? c.text(col) : null)
  const [ch, prev, mac] = [hex64(k.ch), hex64(k.prev), hex64(k.mac)]
  return ch === sha256Hex(body) && prev === link && mac !== null && mac === hmacHex(key, link, ch)
}

/** Rewrites canonical_hash and hmac_hash in the record for its current body, link and key. */
function reseal(c: CellReader, k: Cols, key: Buffer, link: string): void {
  const ch = sha256Hex(c.castBlob(k.body)!)
  c.buf.write(ch, c.offs[k.ch]!, 'latin1')
  c.buf.write(hmacHex(key, link, ch), c.offs[k.mac]!, 'latin1')
}

const SPECIAL = [
  0x22, 0x5c, 0x2c, 0x7d, 0x6e, 0x75, 0x6c, 0x30, 0x39, 0x61, 0x66, 0x41, 0x0a, 0x0d, 0x20, 0x7f, 0x80, 0xe2,
]

describe.skipIf(addon === null)('proveRow proves exactly what the TypeScript fast path proves', () => {
  const a = addon as NativeAddon
  let before: Map<string, string>
  beforeAll(() => {
    before = fingerprintFolder()
  })
  afterAll(() => expect(fingerprintFolder()).toEqual(before))

  for (const name of [
    'clean',
    'rotation',
    'raw-secret',
    'body-edit',
    'ts-column-edit',
    'odd-non-json-body',
  ]) {
    it(`${name}: every row as found, and seeded changes of its bytes and types`, () => {
      const exp = expected(name)
      const keys = parseSecrets(secretInputs(exp.secrets))
      const chain = openDirect(dbPath(name))
      const scanner = new RowScanner(layoutOf(chain))
      const col = (n: string): number => scanner.col(n)
      const k: Cols = {
        body: col('canonical_body'),
        ch: col('canonical_hash'),
        prev: col('prev_hash'),
        mac: col('hmac_hash'),
        ts: col('timestamp_ns'),
        name: col('span_name'),
        kind: col('span_kind'),
      }
      const order = Int32Array.of(k.body, k.ch, k.prev, k.mac, k.ts, k.name, k.kind)
      const rng = new Rng(0x1234 + name.length)
      const tally = { rows: 0, asFound: 0, cases: 0, proven: 0 }
      const check = (c: CellReader, link: string, key: Buffer, what: string): void => {
        a.startRun(a.hmacKey(key), Buffer.from(link, 'latin1'), order)
        const native = a.proveRow(c.buf, c.types, c.offs)
        expect(native, `${name} seq ${c.rowid}: ${what}`).toBe(provenByTypeScript(c, k, link, key))
        // The link moves to the row's hmac exactly when the row is proven.
        expect(a.link()).toBe(native ? c.text(k.mac) : link)
        tally.cases++
        if (native) tally.proven++
      }
      try {
        scanner.scan(0, chain.leaves.pages.length, (c) => {
          tally.rows++
          const link = c.text(k.prev) ?? ''
          const key = keys.find((m) => hmacHex(m.bytes, link, c.text(k.ch) ?? '') === c.text(k.mac))?.bytes
          if (key === undefined) return true
          check(c, link, key, 'as found')
          tally.asFound++
          const original = c.buf
          for (let i = 0; i < 25; i++) {
            const buf = Buffer.from(original)
            const pick = rng.int(10)
            const target = [k.body, k.body, k.body, k.ts, k.name, k.kind, k.ch, k.prev, k.mac, k.body][pick]!
            const size = target < 0 ? 0 : c.types[target]! >= 12 ? (c.types[target]! - 12) >> 1 : 8
            let what = 'unchanged'
            if (size > 0) {
              // Mostly near the end of the body, where the span's top-level keys are.
              const at =
                c.offs[target]! +
                (target === k.body && pick < 3 ? Math.max(0, size - 1 - rng.int(180)) : rng.int(size))
              const byte = rng.next() < 0.7 ? SPECIAL[rng.int(SPECIAL.length)]! : rng.int(256)
              buf[at] = byte
              what = `byte ${at - c.offs[target]!} of column ${target} := 0x${byte.toString(16)}`
            }
            c.buf = buf
            // A changed body mostly gets its hashes rewritten (as its writer, or someone holding the
            // key, would): then the span's shape alone decides, not the body hash.
            if (target === k.body && rng.next() < 0.8) {
              reseal(c, k, key, link)
              what += ', resealed'
            }
            const types = c.types.slice()
            if (rng.next() < 0.1) {
              const t = [k.name, k.kind, k.ts, k.ch, k.body][rng.int(5)]!
              if (t >= 0) {
                c.types[t] = [0, 7, 1, 13 + 126, 12 + 2 * ((c.types[t]! - 12) >> 1)][rng.int(5)]!
                what += `, type of column ${t} := ${c.types[t]}`
              }
            }
            const badLink = rng.next() < 0.1
            check(
              c,
              badLink ? link.replace(/^./, (x) => (x === 'a' ? 'b' : 'a')) : link,
              key,
              what + (badLink ? ', link changed' : ''),
            )
            c.types.set(types)
            c.buf = original
          }
          return true
        })
      } finally {
        scanner.close()
      }
      expect(tally.rows).toBeGreaterThan(0)
      if (name === 'clean') expect(tally.asFound).toBe(tally.rows)
      // Both answers occur: the changes are not all fatal, nor all harmless.
      expect(tally.proven).toBeGreaterThan(tally.asFound * 0.5)
      expect(tally.cases - tally.proven).toBeGreaterThan(tally.asFound * 5)
    })
  }
})

const TS_WIDTH: Record<number, number> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 8: 0, 9: 0 }

/**
 * A record laid out as the direct reader would hand it over (body, the three hashes, timestamp_ns
 * of serial type `tsType`, span_name, span_kind), sealed under `key` after `link`.
 */
function syntheticRow(o: {
  body: string
  ts: bigint
  tsType: number
  name: string | null
  kind: string | null
  key: Buffer
  link: string
}): CellReader {
  const body = Buffer.from(o.body)
  const ch = sha256Hex(body)
  const mac = hmacHex(o.key, o.link, ch)
  const width = TS_WIDTH[o.tsType]!
  const ts = Buffer.alloc(8)
  ts.writeBigInt64BE(BigInt.asIntN(64, o.ts))
  const text = (v: string | null): Buffer => (v === null ? Buffer.alloc(0) : Buffer.from(v))
  const parts = [
    body,
    Buffer.from(ch),
    Buffer.from(o.link),
    Buffer.from(mac),
    ts.subarray(8 - width),
    text(o.name),
    text(o.kind),
  ]
  const types = Int32Array.of(
    13 + 2 * body.length,
    141,
    141,
    141,
    o.tsType,
    o.name === null ? 0 : 13 + 2 * parts[5]!.length,
    o.kind === null ? 0 : 13 + 2 * parts[6]!.length,
  )
  const offs = new Int32Array(7)
  let at = 0
  parts.forEach((p, i) => {
    offs[i] = at
    at += p.length
  })
  // Only the fields the record accessors read; no pager is needed for a record held in one buffer.
  const c = Object.create(CellReader.prototype) as CellReader
  Object.assign(c, { buf: Buffer.concat(parts), types, offs, rowid: 2, rowidBig: null })
  return c
}

const span = (
  ts: string,
  kind: string,
  name: string,
  status = '"UNSET"',
  description = 'null',
  end = '}',
): string =>
  `{"attributes":{"a":1},"end_time_ns":"${ts}","kind":${kind},"name":${name},"start_time_ns":"1",` +
  `"status_code":${status},"status_description":${description}${end}`

describe.skipIf(addon === null)('proveRow on records built for the edge cases', () => {
  const a = addon as NativeAddon
  const key = Buffer.from('00112233445566778899aabbccddeeff', 'hex')
  const link = 'ab'.repeat(32)
  const synthetic: Cols = { body: 0, ch: 1, prev: 2, mac: 3, ts: 4, name: 5, kind: 6 }
  const prove = (c: CellReader, kind = 6): boolean => {
    a.startRun(a.hmacKey(key), Buffer.from(link, 'latin1'), Int32Array.of(0, 1, 2, 3, 4, 5, kind))
    const native = a.proveRow(c.buf, c.types, c.offs)
    expect(native).toBe(provenByTypeScript(c, { ...synthetic, kind }, link, key))
    return native
  }
  const row = (
    body: string,
    o: Partial<{ ts: bigint; tsType: number; name: string | null; kind: string | null }> = {},
  ) => syntheticRow({ body, ts: 1n, tsType: 1, name: 'chat', kind: 'CLIENT', key, link, ...o })

  it('timestamps of every integer serial type, negative ones too', () => {
    const values: Record<number, bigint[]> = {
      1: [0n, 1n, 127n, -1n, -128n],
      2: [300n, -300n, 32767n, -32768n],
      3: [8388607n, -8388608n, 70000n],
      4: [2147483647n, -2147483648n],
      5: [140737488355327n, -140737488355328n],
      6: [1762157515425018468n, -9223372036854775808n, 9223372036854775807n],
      8: [0n],
      9: [1n],
    }
    for (const [type, list] of Object.entries(values)) {
      for (const ts of list) {
        const tsType = Number(type)
        expect(prove(row(span(String(ts), '"CLIENT"', '"chat"'), { ts, tsType })), `${type}: ${ts}`).toBe(
          true,
        )
        expect(
          prove(row(span(String(-ts - 1n), '"CLIENT"', '"chat"'), { ts, tsType })),
          `${type}: ${ts} vs other`,
        ).toBe(false)
      }
    }
    // A REAL timestamp is never proven here.
    expect(prove(row(span('1', '"CLIENT"', '"chat"'), { tsType: 7 }))).toBe(false)
  })

  it('escapes in the status strings, the closing brace, names and kinds', () => {
    const cases: [string, boolean][] = [
      [span('1', '"CLIENT"', '"chat"'), true],
      [span('1', '"CLIENT"', '"chat"', '"ERROR"', '"a \\"quoted\\" \\\\ b"'), true],
      [span('1', '"CLIENT"', '"chat"', '"ERROR"', '"line\\nbreak é"'), true],
      [span('1', '"CLIENT"', '"chat"', '"ERROR"', '"raw \\\nnewline"'), false],
      [span('1', '"CLIENT"', '"chat"', '"ERROR"', '"raw \\\rreturn"'), false],
      [span('1', '"CLIENT"', '"chat"', '"ERROR"', '"unterminated'), false],
      [span('1', '"CLIENT"', '"chat"', 'nul'), false],
      [span('1', '"CLIENT"', '"chat"', '"UNSET"', 'null', '} '), false],
      [span('1', '"CLIENT"', '"chat"', '"UNSET"', 'null', ''), false],
      [span('1', '"CLIENT"', '"chat"', '"UNSET"', 'null', ',"x":1}'), false],
      [span('1', '"SERVER"', '"chat"'), false],
      [span('1', '"CLIENT"', '"chat2"'), false],
      [span('1', 'null', '"chat"'), false],
      ['{"attributes":{}}', false],
      ['{"attr', false],
    ]
    for (const [body, want] of cases) expect(prove(row(body)), body).toBe(want)
    // A NULL kind, and a table without span_kind, both read as `null`.
    expect(prove(row(span('1', 'null', '"chat"'), { kind: null }))).toBe(true)
    expect(prove(row(span('1', 'null', '"chat"')), -1)).toBe(true)
    // Names and kinds JSON.stringify would escape are left to the ordinary path.
    for (const name of ['a"b', 'a\\b', 'tab\t', 'é']) {
      expect(prove(row(span('1', '"CLIENT"', JSON.stringify(name)), { name })), name).toBe(false)
    }
    // …also where the body holds the column's bytes unescaped (`"a\nb"` reads as a line break).
    expect(prove(row(span('1', '"CLIENT"', '"a\\nb"'), { name: 'a\\nb' }))).toBe(false)
    expect(prove(row(span('1', '"CLIENT"', '"chat"'), { name: null }))).toBe(false)
  })
})

describe.skipIf(addon === null)('every fixture verdict is the same with and without the addon', () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const exp = expected(name)
      const keys = parseSecrets(secretInputs(exp.secrets))
      const primary = parseSecrets(secretInputs(exp.secrets.slice(0, 1)))
      const run = async (native: boolean): Promise<unknown[]> => {
        if (native) delete process.env['BIJOTEL_NATIVE']
        else process.env['BIJOTEL_NATIVE'] = '0'
        try {
          const source = DirectSource.of(openDirect(dbPath(name)))
          try {
            return [
              await verifyRows(source, keys),
              await verifyRows(source, primary),
              await verifyRows(source, keys, { range: { seq_start: 5, seq_end: 40 } }),
              await verifyRows(source, keys, { range: { last_n: 7 } }),
            ]
          } finally {
            source.close()
          }
        } finally {
          delete process.env['BIJOTEL_NATIVE']
        }
      }
      const withAddon = await run(true)
      expect(withAddon[0]).toEqual(exp.verify)
      expect(withAddon[1]).toEqual(exp.verify_primary_only)
      expect(await run(false)).toEqual(withAddon)
    })
  }
})

describe.skipIf(addon === null)("two partitions sharing one thread's addon", () => {
  const SECRET = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'
  let dir = ''
  beforeAll(() => {
    ensureBuilt()
    dir = mkdtempSync(join(tmpdir(), 'bijotel-interleave-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a partition verified in the middle of another takes the link over and gives it back', () => {
    // 5,000 rows: the outer partition reports progress every 2,048 rows, from inside a run of
    // proven rows, and there the inner partition (another chain, other keys) runs to its end.
    const big = join(dir, 'big.db')
    const made = bijotel(['demo', '--db', big, '--count', '5000', '--secret-hex', SECRET, '--seed', '3'])
    expect(made.code, made.stderr).toBe(0)
    const outer = openDirect(big)
    const inner = openDirect(dbPath('rotation'))
    const outerKeys = parseSecrets([{ encoding: 'hex', value: SECRET }])
    const innerKeys = parseSecrets(secretInputs(expected('rotation').secrets))
    const run = (chain: typeof outer, keys: typeof outerKeys, hooks = {}) => {
      const source = DirectSource.of(chain)
      try {
        return verifyPart(source, keys, WHOLE, source.place(WHOLE).place, { firstOrd: 0, first: true }, hooks)
      } finally {
        source.close()
      }
    }
    const outerAlone = run(outer, outerKeys)
    const innerAlone = run(inner, innerKeys)
    expect(outerAlone.rows).toBe(5000)
    expect(outerAlone.findings).toEqual([])
    const handedBack = vi.spyOn(RowChecker.prototype, 'releaseLink')
    const nested: unknown[] = []
    try {
      const interleaved = run(outer, outerKeys, {
        onRows: (n: number) => {
          if (n > 0 && n < 5000) nested.push(run(inner, innerKeys))
        },
      })
      expect(nested.length).toBe(2)
      for (const r of nested) expect(r).toEqual(innerAlone)
      expect(interleaved).toEqual(outerAlone)
      // The outer partition's link went back to it each time the inner one started.
      expect(handedBack.mock.calls.length).toBeGreaterThanOrEqual(4)
    } finally {
      handedBack.mockRestore()
    }
  })
})
