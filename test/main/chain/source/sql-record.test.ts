// Rows of the SQLite copy proven on their values written as a record (src/main/chain/source/
// sql-record.ts, issue 36). The provers (native `proveRow`, and the TypeScript fast path without
// the addon) may only ever prove what `RowChecker.push` would decide clean from the same values: a
// verdict through the copy must be the same with either prover as with `push` alone.
//
// The adversary stores values whose record a careless writer would get wrong: hash columns as BLOBs
// holding the right ASCII, as TEXT with a character whose low byte spells the right hex digit
// (a latin1 write would turn U+0161 into 'a'), as TEXT that is not UTF-8, in upper case; timestamps
// as REAL, TEXT, BLOB or NULL; names and kinds as BLOBs, non-ASCII, not UTF-8, NULL, the text 'null';
// bodies as TEXT, not UTF-8 (resealed, so only the bytes decide), an integer, NULL; seqs past 2^53.
// Each case is a seeded handful of these on a sealed chain with no column types (any value
// anywhere), read in one run and in several.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { KeyMaterial } from '../../../../src/main/chain/keys'
import type { RowSource } from '../../../../src/main/chain/source/row-source'
import { CopySource } from '../../../../src/main/chain/source/copy-source'
import { RecordWriter } from '../../../../src/main/chain/source/sql-record'
import { nativeProverActive } from '../../../../src/main/chain/addon/row-prover'
import { verifyRows } from '../../../../src/main/verify/verify'
import {
  appendRows,
  CHAIN_SCHEMA,
  GENESIS,
  openScratch,
  seal,
  sha256,
  spanRows,
  writeChain,
} from '../../reliability/chainkit'
import { KEY } from '../../testing/exact-chains'
import { mulberry32 } from '../../testing/prng'
import { openSource } from '../../testing/sources'

const root = mkdtempSync(join(tmpdir(), 'sql-record-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: KEY }]

type Db = ReturnType<typeof openScratch>

/** One way to store a row's value as the adversary would; `seq` is the row's. */
interface Change {
  name: string
  apply(db: Db, seq: bigint, rnd: () => number): void
}

const HASHES = ['canonical_hash', 'prev_hash', 'hmac_hash'] as const

const get = (db: Db, col: string, seq: bigint): unknown =>
  db.prepare(`SELECT ${col} FROM chain WHERE seq = ?`).pluck().get(seq)
const set = (db: Db, col: string, seq: bigint, sqlValue: string, ...params: unknown[]): void =>
  void db.prepare(`UPDATE chain SET ${col} = ${sqlValue} WHERE seq = ?`).run(...params, seq)

const bodyOf = (db: Db, seq: bigint): Buffer =>
  (get(db, 'CAST(canonical_body AS BLOB)', seq) as Buffer | null) ?? Buffer.alloc(0)

/** The body's bytes replaced, and the row resealed over them (so only the bytes decide). */
function reseal(db: Db, seq: bigint, body: Buffer | string | bigint | null): void {
  const bytes =
    typeof body === 'bigint'
      ? Buffer.from(body.toString())
      : body === null
        ? Buffer.alloc(0)
        : Buffer.from(body)
  const ch = sha256(bytes)
  const prev = String(get(db, 'prev_hash', seq))
  db.prepare('UPDATE chain SET canonical_body = ?, canonical_hash = ?, hmac_hash = ? WHERE seq = ?').run(
    body,
    ch,
    seal(KEY, prev, ch),
    seq,
  )
}

const pick = <T>(xs: readonly T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)]!

const onHash = (name: string, sql: (col: string) => string): Change => ({
  name,
  apply: (db, s, r) => {
    const col = pick(HASHES, r)
    set(db, col, s, sql(col))
  },
})
const onText = (
  name: string,
  cols: readonly string[],
  value: (v: string, r: () => number) => unknown,
): Change => ({
  name,
  apply: (db, s, r) => {
    const col = pick(cols, r)
    const v = value(String(get(db, col, s) ?? 'x'), r)
    if (Buffer.isBuffer(v)) set(db, col, s, 'CAST(? AS TEXT)', v)
    else set(db, col, s, '?', v)
  },
})
/** `v` as bytes with one of them made 0xff: not UTF-8. */
const notUtf8 = (v: string, r: () => number): Buffer => {
  const b = Buffer.from(v, 'latin1')
  b[Math.floor(r() * b.length)] = 0xff
  return b
}
const NAMES = ['span_name', 'span_kind'] as const

const CHANGES: Change[] = [
  onHash('a hash as a BLOB of its ASCII', (c) => `CAST(${c} AS BLOB)`),
  onText('a hash digit as the character whose low byte is that digit', HASHES, (v, r) => {
    const i = Math.floor(r() * v.length)
    return v.slice(0, i) + String.fromCharCode(0x100 | v.charCodeAt(i)) + v.slice(i + 1)
  }),
  onText('a hash as TEXT that is not UTF-8', HASHES, notUtf8),
  onHash('a hash in upper case', (c) => `upper(${c})`),
  onText('a hash one character short', HASHES, (v) => v.slice(0, 63)),
  onText('a hash one character long', HASHES, (v) => `${v}0`),
  onText('a hash ending in NUL', HASHES, (v) => `${v.slice(0, 63)}\u0000`),
  ...['REAL', 'TEXT'].map((t) => ({
    name: `timestamp_ns as ${t} of the same value`,
    apply: (db: Db, s: bigint) => set(db, 'timestamp_ns', s, `CAST(timestamp_ns AS ${t})`),
  })),
  {
    name: 'timestamp_ns as a BLOB of its digits',
    apply: (db, s) => set(db, 'timestamp_ns', s, 'CAST(CAST(timestamp_ns AS TEXT) AS BLOB)'),
  },
  { name: 'timestamp_ns NULL', apply: (db, s) => set(db, 'timestamp_ns', s, 'NULL') },
  {
    name: 'span_name or span_kind as a BLOB of its bytes',
    apply: (db, s, r) => {
      const col = pick(NAMES, r)
      set(db, col, s, `CAST(${col} AS BLOB)`)
    },
  },
  onText('span_name or span_kind ending in a non-ASCII character', NAMES, (v) => `${v.slice(0, -1)}é`),
  onText('span_name or span_kind as TEXT that is not UTF-8', NAMES, notUtf8),
  onText('span_name or span_kind as the text null', NAMES, () => 'null'),
  {
    name: 'span_name or span_kind NULL',
    apply: (db, s, r) => set(db, pick(NAMES, r), s, 'NULL'),
  },
  {
    name: 'the body as TEXT',
    apply: (db, s) => set(db, 'canonical_body', s, 'CAST(canonical_body AS TEXT)'),
  },
  {
    name: 'the body not UTF-8 inside the name, resealed',
    apply: (db, s) => {
      const b = Buffer.from(bodyOf(db, s))
      const at = b.lastIndexOf('"name":"')
      b[at < 0 ? 0 : at + 9] = 0xfe // the tail no longer agrees with span_name
      reseal(db, s, b)
    },
  },
  { name: 'the body an integer, resealed', apply: (db, s) => reseal(db, s, 12345n) },
  { name: 'the body NULL, resealed', apply: (db, s) => reseal(db, s, null) },
  // Bytes the copy's text read of the body (CAST … AS TEXT, V8's UTF-8 decoder) must not take
  // for the body: each in an attribute, resealed, so only the bytes decide.
  ...(
    [
      ['a BOM first', 'efbbbf', true],
      ['a NUL', '00', false],
      ['a real U+FFFD', 'efbfbd', false],
      ['an overlong sequence', 'c0af', false],
      ['an encoded surrogate', 'eda080', false],
      ['a cut 4-byte sequence, as long as its U+FFFD', 'f09080', false],
      ['a 4-byte character', 'f09f9880', false],
      ['a cut sequence last', 'e282', false],
    ] as const
  ).map(([what, hex, first]): Change => ({
    name: `the body with ${what}, resealed`,
    apply: (db, s) => {
      const body = bodyOf(db, s)
      const raw = Buffer.from(hex, 'hex')
      if (first) return reseal(db, s, Buffer.concat([raw, body]))
      const at = body.indexOf('{"i":')
      if (at < 0) return reseal(db, s, Buffer.concat([body, raw]))
      const head = Buffer.from('{"a":"')
      reseal(
        db,
        s,
        Buffer.concat([body.subarray(0, at), head, raw, Buffer.from('x",'), body.subarray(at + 1)]),
      )
    },
  })),
  {
    name: 'the body rewritten as TEXT of other bytes, resealed',
    apply: (db, s) => reseal(db, s, bodyOf(db, s).toString('utf8').replace('UNSET', 'OK\u00e9')),
  },
]

/** The copy with its rows offering no records: every row decided by `push` alone. */
function withoutRecords(copy: CopySource): RowSource {
  return Object.create(copy, {
    scanWithPredecessor: {
      value: (...args: Parameters<NonNullable<RowSource['scanWithPredecessor']>>) =>
        copy.scanWithPredecessor(args[0], args[1], args[2], args[3], args[4], false),
    },
  }) as RowSource
}

describe('verify through the copy: the provers on records never decide otherwise than push', () => {
  const saved = process.env['BIJOTEL_NATIVE']
  afterEach(() => {
    if (saved === undefined) delete process.env['BIJOTEL_NATIVE']
    else process.env['BIJOTEL_NATIVE'] = saved
  })

  it('is what the provers are given: a record of exactly the values', () => {
    const slots = Int32Array.of(1, 2, -1, 3, 4)
    const w = new RecordWriter(slots)
    expect(w.write([0n, -(2n ** 63n), 'é\u0000x', Buffer.from([1, 2]), null])).toBe(true)
    expect([...w.types]).toEqual([6, 13 + 2 * 4, 0, 12 + 2 * 2, 0])
    expect(w.buf.readBigInt64BE(w.offs[0]!)).toBe(-(2n ** 63n))
    expect(w.buf.subarray(w.offs[1]!, w.offs[1]! + 4)).toEqual(Buffer.from('é\u0000x'))
    expect(w.buf.subarray(w.offs[3]!, w.offs[3]! + 2)).toEqual(Buffer.from([1, 2]))
    // A REAL, or an integer SQLite could not hold, leaves the row to the ordinary checks.
    expect(w.write([0n, 1.5, 'a', null, null])).toBe(false)
    expect(w.write([0n, 2n ** 63n, 'a', null, null])).toBe(false)
    // Values larger than the buffer grow it.
    const big = Buffer.alloc(100_000, 7)
    expect(w.write([0n, 1n, 'x'.repeat(50_000), big, null])).toBe(true)
    expect(w.buf.subarray(w.offs[3]!, w.offs[3]! + big.length).equals(big)).toBe(true)
  })

  // Every change is the first of at least three cases, at a row the provers could take.
  const CASES = 3 * CHANGES.length
  it(`${CASES} seeded cases of hostile storage: the same verdict from push alone, the JS prover and the native one`, async () => {
    const rnd = mulberry32(3604)
    let distinct = 0
    for (let k = 0; k < CASES; k++) {
      const path = join(root, `case-${k}.db`)
      const rows = 30 + Math.floor(rnd() * 40)
      const specs = spanRows(rows).map((r, i) => ({ ...r, seq: BigInt(i + 1) }))
      writeChain(path, KEY, specs, { loose: true })
      const db = openScratch(path)
      const did: string[] = []
      try {
        for (let c = 0, n = 1 + Math.floor(rnd() * 4); c < n; c++) {
          const change = c === 0 ? CHANGES[k % CHANGES.length]! : pick(CHANGES, rnd)
          const seq = BigInt(2 + Math.floor(rnd() * (rows - 1)))
          change.apply(db, seq, rnd)
          did.push(`${change.name} @${seq}`)
        }
        // Now and then the last row's seq past 2^53 (the provers leave such rows to push).
        if (rnd() < 0.2) db.prepare('UPDATE chain SET seq = ? WHERE seq = ?').run(2n ** 60n, BigInt(rows))
      } finally {
        db.close()
      }
      const copy = (await openSource(path, 'sqlite-copy')) as CopySource
      try {
        const verdicts: Record<string, unknown> = {}
        for (const runs of [1, 3]) {
          delete process.env['BIJOTEL_NATIVE']
          const native = nativeProverActive()
          verdicts[`native ${runs}`] = await verifyRows(copy, keys, { runs })
          process.env['BIJOTEL_NATIVE'] = '0'
          verdicts[`js ${runs}`] = await verifyRows(copy, keys, { runs })
          verdicts[`push ${runs}`] = await verifyRows(withoutRecords(copy), keys, { runs })
          if (!native) delete verdicts[`native ${runs}`]
        }
        const [first, ...rest] = Object.values(verdicts)
        for (const v of rest) expect(v, `case ${k}: ${did.join('; ')}`).toEqual(first)
        if (!(first as { valid: boolean }).valid) distinct++
      } finally {
        copy.close()
      }
    }
    // The changes are seen: most cases are not VALID (a few changes leave the verdict as it was).
    expect(distinct).toBeGreaterThan(CASES / 2)
  })

  it('reads bodies as text, and reads a run again as bytes only where a body is not UTF-8', async () => {
    const modes = async (path: string): Promise<unknown[]> => {
      const copy = (await openSource(path, 'sqlite-copy')) as CopySource
      try {
        const seen: unknown[] = []
        const spy = Object.create(copy, {
          scanWithPredecessor: {
            value: (...a: Parameters<NonNullable<RowSource['scanWithPredecessor']>>) => {
              seen.push(a[5])
              return copy.scanWithPredecessor(...a)
            },
          },
        }) as RowSource
        const v = await verifyRows(spy, keys, { runs: 2 })
        delete process.env['BIJOTEL_NATIVE']
        expect(v).toEqual(await verifyRows(withoutRecords(copy), keys, { runs: 2 }))
        return seen
      } finally {
        copy.close()
      }
    }
    const clean = join(root, 'text-clean.db')
    writeChain(clean, KEY, spanRows(40))
    expect(await modes(clean)).toEqual(['text', 'text'])
    const bad = join(root, 'text-bad.db')
    writeChain(bad, KEY, spanRows(40))
    const db = openScratch(bad)
    reseal(db, 30n, Buffer.concat([bodyOf(db, 30n), Buffer.from([0xff])]))
    db.close()
    // Runs of 21 and 19 rows: only the second holds seq 30.
    expect(await modes(bad)).toEqual(['text', 'text', 'bytes'])
  })

  it('a UTF-16 database: bodies read as bytes (its TEXT of a BLOB is not the bytes), the same verdicts', async () => {
    for (const enc of ['UTF-16le', 'UTF-16be']) {
      const path = join(root, `${enc}.db`)
      const db = openScratch(path)
      db.pragma(`encoding = '${enc}'`)
      db.exec(CHAIN_SCHEMA)
      appendRows(db, KEY, spanRows(30), GENESIS)
      reseal(db, 12n, Buffer.from('{"attributes":{},"name":"\u4e2d"}'))
      db.close()
      const copy = (await openSource(path, 'sqlite-copy')) as CopySource
      try {
        const v = await verifyRows(copy, keys, { runs: 2 })
        expect(v.findings.length).toBeGreaterThan(0)
        expect(v).toEqual(await verifyRows(withoutRecords(copy), keys, { runs: 2 }))
      } finally {
        copy.close()
      }
    }
  })

  it('a clean chain read through the copy is proven by the native prover, not pushed', async () => {
    if (!nativeProverActive()) return
    const path = join(root, 'clean.db')
    writeChain(path, KEY, spanRows(50))
    const copy = (await openSource(path, 'sqlite-copy')) as CopySource
    try {
      let records = 0
      const counting = Object.create(copy, {
        scanWithPredecessor: {
          value: (...a: Parameters<NonNullable<RowSource['scanWithPredecessor']>>) =>
            copy.scanWithPredecessor(
              a[0],
              a[1],
              a[2],
              (r) => {
                if (r.record !== null) records++
                return a[3](r)
              },
              a[4],
              a[5],
            ),
        },
      }) as RowSource
      const v = await verifyRows(counting, keys)
      expect(v.valid).toBe(true)
      expect(records).toBe(50)
    } finally {
      copy.close()
    }
  })
})
