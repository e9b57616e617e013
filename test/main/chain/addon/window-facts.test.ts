// The addon's window walk (windowFacts: the integrity monitor's newest rows read in one call)
// against the TypeScript walk it stands in for: the same columns, leaves and detector results on
// every fixture, on a WAL chain with scattered leaves, on a tree with two interior levels, on
// bodies whose providers only the JSON rules decide, and on seeded page corruption; rows it must
// leave (overflowing cells, loose timestamps, bodies for JSON.parse) leave the window to TypeScript.
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import type { IntegrityColumns } from '../../../../src/main/chain/columns/types'
import { lastLeafColumns } from '../../../../src/main/chain/direct/page-columns'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { runIntegrity } from '../../../../src/main/integrity/analyze'
import { BASE_TS, SEC, TempChains, type SynthRow } from '../../integrity/testchain'
import { Rng, scratchDir } from '../../reliability/chainkit'
import { dbPath, fixtureNames } from '../../testing/fixtures'
import { pageMutants, pagesWhere } from '../../testing/mutants'
import { passOver } from '../../testing/passes'
import { scatteredWalChain } from '../../testing/wal-chains'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import { directSource } from '../../testing/sources'
import {
  leafTimesAvailable,
  nativeWindow,
  type WindowAddon,
} from '../../../../src/main/chain/addon/leaf-pages'
import { nativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { rowFacter } from '../../../../src/main/chain/body-scan'

const chains = new TempChains()
const scratch = scratchDir('window-facts')
afterAll(() => {
  chains.dispose()
  scratch.cleanup()
})

const WANTED = { facts: true, integrity: true }
const INTEGRITY_KEYS = [
  'rows',
  'seq',
  'seqBig',
  'ts',
  'provider',
  'providerNames',
  'looseTs',
  'badTs',
  'seconds',
  'secondsSorted',
  'hashFp',
  'hashFpSorted',
] as const satisfies readonly (keyof IntegrityColumns)[]

/** The window's columns and leaves read with the addon or without, and whether the addon read them. */
function windowOf(
  path: string,
  limit: number,
  native: boolean,
): { value?: unknown; error?: string; byAddon: boolean } {
  let byAddon = false
  const r = passOver(path, native, (scanner, _leaves, chain) => {
    if (native) {
      rowFacter(
        scanner.col('timestamp_ns'),
        scanner.col('canonical_body'),
        scanner.col('canonical_hash'),
        scanner.pageLayout,
      )
      byAddon = nativeWindow(scanner.pager, chain.root, limit) !== null
    }
    const part = lastLeafColumns(scanner, chain.root, limit, WANTED)
    // What the integrity monitor reads of the part (the TypeScript walk's has the index's columns too).
    return { part: Object.fromEntries(INTEGRITY_KEYS.map((k) => [k, part[k]])) }
  })
  return { ...r, byAddon }
}

/** The integrity detectors over the window, with the addon or without (or the error they end with). */
async function detectorsOf(path: string, limit: number, native: boolean): Promise<unknown> {
  if (native) delete process.env['BIJOTEL_NATIVE']
  else process.env['BIJOTEL_NATIVE'] = '0'
  try {
    const source = directSource(path)
    try {
      return (await runIntegrity(source, { window: limit })).report
    } finally {
      source.close()
    }
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`
  } finally {
    delete process.env['BIJOTEL_NATIVE']
  }
}

/** Holds the addon's window to the TypeScript one; returns whether the addon read it. */
async function expectSame(path: string, limit: number): Promise<boolean> {
  const native = windowOf(path, limit, true)
  const typescript = windowOf(path, limit, false)
  expect(native.error, `${path} ${limit}`).toBe(typescript.error)
  expect(native.value, `${path} ${limit}`).toEqual(typescript.value)
  expect(await detectorsOf(path, limit, true), `${path} ${limit}`).toEqual(
    await detectorsOf(path, limit, false),
  )
  return native.byAddon
}

/** Rows whose bodies are `bodies`, round and round, with every 7th hash repeated. */
function bodiesChain(bodies: (string | Buffer)[], n: number): string {
  const rows: SynthRow[] = Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    ts: BASE_TS + BigInt(i) * SEC * (i % 50 === 0 ? 5000n : 1n),
    body: bodies[i % bodies.length]!,
    hash: i % 7 === 3 ? 'same' : `h${i}`,
  }))
  return chains.write(rows)
}

describe.skipIf(!leafTimesAvailable())('native window', () => {
  it('equals the TypeScript window on every fixture and a scattered WAL chain', async () => {
    let byAddon = 0
    const paths = [...fixtureNames().map(dbPath), scatteredWalChain(scratch.dir)]
    for (const path of paths)
      for (const limit of [2, 3, 100, 1000, 10_000]) if (await expectSame(path, limit)) byAddon++
    // Most windows were read by the addon (the rest are bad inputs or rows it leaves).
    expect(byAddon).toBeGreaterThan(paths.length * 3)
  })

  it('names providers as the JSON rules do, in the order the TypeScript walk meets them', async () => {
    const bodies = [
      '{"attributes":{"gen_ai.provider.name":"openai"}}',
      '{"attributes":{"gen_ai.system":"anthropic"}}',
      '{"attributes":{"gen_ai.provider.name":"","gen_ai.system":"fallback"}}',
      '{"attributes":{"gen_ai.provider.name":"open\\u0061i"}}',
      '{"attributes":{"gen_ai.provider.name":"caf\\u00e9 \\"q\\""}}',
      '{"attributes":{"gen_ai.provider.name":0,"gen_ai.system":"zero-skipped"}}',
      '{"attributes":{"gen_ai.provider.name":1.50}}',
      '{"attributes":{"gen_ai.provider.name":-2e3}}',
      '{"attributes":{"gen_ai.provider.name":true}}',
      '{"attributes":{"gen_ai.provider.name":false,"gen_ai.system":null}}',
      '{"attributes":{"gen_ai.provider.name":{}}}',
      '{"attributes":{"gen_ai.provider.name":{"a":1}}}',
      '{"attributes":{"gen_ai.provider.name":[ ]}}',
      '{"attributes":{"gen_ai.provider.name":[1]}}',
      '{"attributes":{}}',
      '{"attributes":',
      Buffer.from([0x7b, 0xff, 0x7d]),
      '{"attributes":{"gen_ai.provider.name":"日本"}}',
      '{"attributes":{"gen_ai.system":"anthropic","gen_ai.provider.name":"openai"}}',
    ]
    const path = bodiesChain(bodies, 3000)
    for (const limit of [2, 19, 500, 3000, 10_000])
      expect(await expectSame(path, limit), `${limit}`).toBe(true)
    const { value } = windowOf(path, 10_000, true)
    const names = (value as { part: IntegrityColumns }).part.providerNames
    expect(new Set(names)).toEqual(
      new Set([
        'openai',
        'anthropic',
        'fallback',
        'café "q"',
        'zero-skipped',
        '1.5',
        '-2000.0', // -2e3 is a Python float: its key is its repr
        'true',
        'unknown',
        '日本',
      ]),
    )
  })

  it('leaves overflowing cells, loose or bad timestamps and bodies for JSON.parse to TypeScript', async () => {
    const deep = `{"attributes":{"gen_ai.system":"deep"},"x":${'['.repeat(300)}${']'.repeat(300)}}`
    const cases: [string, (db: Database.Database) => void][] = [
      ['overflow', (db) => db.exec(`UPDATE chain SET canonical_body = zeroblob(9000) WHERE seq = 2990`)],
      ['real', (db) => db.exec(`UPDATE chain SET timestamp_ns = 1.5e18 WHERE seq = 2995`)],
      ['text', (db) => db.exec(`UPDATE chain SET timestamp_ns = 'soon' WHERE seq = 2993`)],
      [
        'deep',
        (db) => db.prepare(`UPDATE chain SET canonical_body = ? WHERE seq = 2980`).run(Buffer.from(deep)),
      ],
      ['hash', (db) => db.exec(`UPDATE chain SET canonical_hash = NULL WHERE seq = 2970`)],
    ]
    for (const [label, change] of cases) {
      const rows: SynthRow[] = Array.from({ length: 3000 }, (_, i) => ({
        seq: i + 1,
        ts: BASE_TS + BigInt(i) * SEC,
      }))
      const path = chains.write(
        rows,
        'seq INTEGER PRIMARY KEY, timestamp_ns, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT',
      )
      const db = new Database(path)
      try {
        change(db)
      } finally {
        db.close()
      }
      // Left to TypeScript when the window reaches the row, read by the addon when it does not.
      expect(await expectSame(path, 100), label).toBe(false)
      expect(await expectSame(path, 5), label).toBe(true)
    }
  })

  it('walks a tree of two interior levels and keys near ±2^62 as TypeScript does', async () => {
    const many = (from: bigint): string =>
      chains.write(
        Array.from({ length: 25_000 }, (_, i) => ({
          seq: from + BigInt(i),
          ts: BASE_TS + BigInt(i) * SEC,
          body: '{}',
        })),
      )
    // Rowids beyond ±2^53 the addon leaves to TypeScript; the two walks must still agree there.
    for (const [from, addon] of [
      [1n, true],
      [2n ** 62n, false],
      [-(2n ** 62n), false],
    ] as const)
      for (const limit of [2, 777, 10_000])
        expect(await expectSame(many(from), limit), `${from} ${limit}`).toBe(addon)
  })

  it('equals it, or fails as it does, on pages with seeded byte changes', async () => {
    const rows: SynthRow[] = Array.from({ length: 25_000 }, (_, i) => ({
      seq: i + 1,
      ts: BASE_TS + BigInt(i) * SEC,
      body: `{"attributes":{"gen_ai.system":"p${i % 4}"}}`,
    }))
    const path = chains.write(rows)
    const ps = openDirect(path).spec.pageSize
    const original = readFileSync(path)
    const last = original.length / ps
    const pages = pagesWhere(original, ps, (n, kind) => kind === 0x05 || n > last - 40)
    const rng = new Rng(0x3d0)
    let byAddon = 0
    let left = 0
    const changes = (page: Buffer): void => {
      for (let c = rng.int(1, 3); c > 0; c--) {
        const at = rng.pick([0, 3, 4, 8, 9, 10, 11, 12, 13, rng.int(0, ps - 1), rng.int(0, ps - 1)])
        page[at] = rng.pick([0x00, 0x01, 0x05, 0x0d, 0x7f, 0x80, 0xff, page[at]! ^ 1])
      }
    }
    for (const { path: mutated } of pageMutants(original, ps, pages, 120, rng, scratch.dir, changes)) {
      if (await expectSame(mutated, rng.pick([10, 500, 10_000]))) byAddon++
      else left++
    }
    expect(byAddon).toBeGreaterThan(10)
    expect(left).toBeGreaterThan(10)
  })

  it('refuses arguments it cannot trust with an error, not a crash', () => {
    const chain = openDirect(dbPath('clean'))
    const scanner = new RowScanner(layoutOf(chain))
    const addon = nativeAddon() as WindowAddon
    try {
      rowFacter(
        scanner.col('timestamp_ns'),
        scanner.col('canonical_body'),
        scanner.col('canonical_hash'),
        scanner.pageLayout,
      )
      const fds = Int32Array.of(scanner.pager.fd, scanner.pager.walFd)
      const geometry = Int32Array.of(chain.spec.pageSize, chain.spec.dbPages, 0, 0, -1)
      const call = (limit: number, room: number, g = geometry, leafRoom = room): unknown =>
        addon.windowFacts(
          fds,
          g,
          new Int32Array(0),
          new Float64Array(0),
          chain.root,
          limit,
          new Float64Array(room),
          new BigInt64Array(room),
          new BigInt64Array(room),
          new Float64Array(room),
          new Float64Array(room),
          new Uint16Array(room),
          new Int32Array(leafRoom),
          new BigInt64Array(leafRoom),
          new Float64Array(2),
          new Uint8Array(chain.spec.pageSize),
        )
      expect(Array.isArray(call(4, 4))).toBe(true)
      expect(() => call(5, 4)).toThrow(RangeError)
      expect(() => call(0, 4)).toThrow(RangeError)
      expect(() => call(-1, 4)).toThrow(RangeError)
      expect(() => call(4, 4, Int32Array.of(1000, chain.spec.dbPages, 0, 0, -1))).toThrow(RangeError)
      // Too few leaf slots for the window: left to TypeScript.
      expect(call(4, 4, geometry, 0)).toBe(null)
    } finally {
      scanner.close()
    }
  })
})
