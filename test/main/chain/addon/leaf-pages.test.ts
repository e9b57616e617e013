// The addon's two page walks against the TypeScript they stand in for (and SQLite):
// - collectLeaves: the same leaf list, or the same error, on every fixture, on a deeper tree with
//   its leaves in the WAL, and on interior pages with seeded byte changes;
// - the quick pass (leafTimes: runs of leaf pages read with pread, their cells decoded in the addon):
//   same seqs, timestamps and errors, on a chain whose leaves are scattered through the file and
//   partly newer in the WAL, on rows it must leave to TypeScript, with arrays too small, and with
//   progress and a cancel.
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { collectLeavesHere } from '../../../../src/main/chain/direct/btree'
import {
  COLUMNS_WORKER,
  QUICK_ONE_THREAD_BYTES,
  quickOnThisThread,
  runOnWorker,
} from '../../../../src/main/chain/columns/parallel'
import { INDEX_COLUMNS, QUICK_COLUMNS, type ColumnsPart } from '../../../../src/main/chain/columns/types'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { leafColumns } from '../../../../src/main/chain/direct/page-columns'
import { DirectSource } from '../../../../src/main/chain/source/direct-source'
import { ensureBuilt } from '../../integrity/testcli'
import { Pager } from '../../../../src/main/chain/direct/pager'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { AuditError } from '../../../../src/main/base/errors'
import { BASE_TS, bodyFor, SEC, TempChains, type SynthRow } from '../../integrity/testchain'
import { Rng, scratchDir } from '../../reliability/chainkit'
import { dbPath, fixtureNames, REPO_ROOT, withSqliteCopy } from '../../testing/fixtures'
import { pageMutants, pagesWhere } from '../../testing/mutants'
import { passOver } from '../../testing/passes'
import { scatteredWalChain as scatteredWalAt } from '../../testing/wal-chains'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import {
  LEAF_TIMES,
  LeafTimer,
  leafTimesAvailable,
  nativeLeafList,
  type LeafPagesAddon,
} from '../../../../src/main/chain/addon/leaf-pages'
import { nativeAddon } from '../../../../src/main/chain/addon/row-prover'

const chains = new TempChains()
const scratch = scratchDir('leaf-times')
afterAll(() => {
  chains.dispose()
  scratch.cleanup()
})

type Result = (typeof LEAF_TIMES)[keyof typeof LEAF_TIMES]

/** The results of the addon's calls and the rows it wrote itself, counted while `f` runs. */
function counting<T>(f: () => T): { value: T; results: Result[]; rows: number } {
  const proto = LeafTimer.prototype
  const real = proto.run
  const results: Result[] = []
  let rows = 0
  proto.run = function (this: LeafTimer, ...args: Parameters<LeafTimer['run']>) {
    const stop = real.apply(this, args)
    results.push(stop.result)
    rows += stop.row - args[3]
    return stop
  }
  try {
    return { value: f(), results, rows }
  } finally {
    proto.run = real
  }
}

/** A quick pass over the chain at `path` (capacity `capacity`), with the addon or without. */
function quick(
  path: string,
  native: boolean,
  capacity = 16,
  hooks: Parameters<typeof leafColumns>[5] = {},
): { part?: ColumnsPart; error?: string; results: Result[]; rows: number } {
  const { value, error } = passOver(path, native, (scanner, leaves) =>
    counting(() => leafColumns(scanner, 0, leaves, capacity, QUICK_COLUMNS, hooks)),
  )
  return value
    ? { part: value.value, results: value.results, rows: value.rows }
    : { error: error!, results: [], rows: 0 }
}

/** seq and integer timestamp of every row, as SQLite reads them (NULL for any other timestamp). */
function sqliteTimes(path: string): [bigint, bigint | null][] {
  return withSqliteCopy(
    path,
    (db) =>
      db
        .prepare(
          "SELECT seq, CASE WHEN typeof(timestamp_ns) = 'integer' THEN timestamp_ns END FROM chain ORDER BY seq",
        )
        .raw(true)
        .safeIntegers(true)
        .all() as [bigint, bigint | null][],
  )
}

function timesOf(part: ColumnsPart): [bigint, bigint | null][] {
  return Array.from(part.seqBig, (s, i) => [s, part.tsValid[i] ? part.ts[i]! : null])
}

function expectSame(path: string, capacity = 16): { results: Result[]; rows: number } {
  const native = quick(path, true, capacity)
  const typescript = quick(path, false, capacity)
  expect(typescript.results).toEqual([])
  expect(native.error).toBe(typescript.error)
  expect(native.part).toEqual(typescript.part)
  return native
}

const scatteredWalChain = (): string => scatteredWalAt(scratch.dir)

describe.skipIf(!leafTimesAvailable())('native leaf times', () => {
  it('reads scattered leaves and their newer WAL images as SQLite does', () => {
    const path = scatteredWalChain()
    const chain = openDirect(path)
    const leaves = Array.from(chain.leaves.pages)
    // The case is what it claims: leaves not in one run, some of them only in the WAL.
    expect(leaves.some((n, i) => i > 0 && n !== leaves[i - 1]! + 1)).toBe(true)
    expect(leaves.some((n) => chain.spec.walPagesNo.includes(n))).toBe(true)
    const native = quick(path, true)
    expect(native.error).toBeUndefined()
    expect(timesOf(native.part!)).toEqual(sqliteTimes(path))
    expect(native.rows).toBe(native.part!.rows)
    expectSame(path)
  })

  it('reads the WAL fixture as SQLite does', () => {
    const native = quick(dbPath('wal-tail'), true)
    expect(timesOf(native.part!)).toEqual(sqliteTimes(dbPath('wal-tail')))
    expectSame(dbPath('wal-tail'))
  })

  it('leaves overflowing cells, loose timestamps and seqs beyond 2^53 to TypeScript, whose answer stands', () => {
    const rows: SynthRow[] = []
    for (let i = 0; i < 400; i++) {
      const big = i % 37 === 5
      rows.push({
        seq: i === 399 ? 2n ** 53n + 1n : i + 1,
        ts: BASE_TS + BigInt(i) * SEC,
        body: big
          ? JSON.stringify({ attributes: { 'gen_ai.system': 'big' }, pad: 'x'.repeat(6000) })
          : bodyFor('p'),
      })
    }
    // No type on timestamp_ns: an INTEGER column would store 1.5e18 and the digits as integers.
    const path = chains.write(
      rows,
      'seq INTEGER PRIMARY KEY, timestamp_ns, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT',
    )
    const db = new Database(path)
    try {
      db.exec(`UPDATE chain SET timestamp_ns = 1.5e18 WHERE seq = 100`)
      db.exec(`UPDATE chain SET timestamp_ns = '1700000000000000000' WHERE seq = 200`)
      db.exec(`UPDATE chain SET timestamp_ns = 'soon' WHERE seq = 300`)
    } finally {
      db.close()
    }
    const { results, rows: decided } = expectSame(path)
    expect(results).toContain(LEAF_TIMES.FOR_TYPESCRIPT)
    expect(decided).toBeGreaterThan(200)
    expect(decided).toBeLessThan(400)
    const native = quick(path, true)
    expect(timesOf(native.part!)).toEqual(sqliteTimes(path))
    expect(native.part!.badTs).toEqual({ seq: '300', value: 'soon' })
    expect(native.part!.looseTs).toEqual([
      [99, 1_500_000_000_000_000_000n],
      [199, 1_700_000_000_000_000_000n],
    ])
  })

  it('names no provider for a chain without rows, as the TypeScript pass does', () => {
    const native = quick(chains.write([]), true)
    expect(native.part!.rows).toBe(0)
    expect(native.part!.providerNames).toEqual([])
    expectSame(chains.write([]))
  })

  it('asks for room when the arrays are full, and then goes on', () => {
    const path = dbPath('clean')
    const { results } = expectSame(path, 1)
    expect(results).toContain(LEAF_TIMES.FULL)
    expect(results.at(-1)).toBe(LEAF_TIMES.DONE)
  })

  it('reports progress and stops on a cancel', () => {
    const path = scatteredWalChain()
    const seen: number[] = []
    const done = quick(path, true, 16, { onRows: (n) => seen.push(n) })
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.at(-1)).toBe(done.part!.rows)
    expect([...seen].sort((a, b) => a - b)).toEqual(seen)
    const signal = { aborted: true }
    const cancelled = quick(path, true, 16, { signal })
    expect(cancelled.error).toBe(
      `AuditError: ${new AuditError('cancelled', 'reading the chain cancelled').message}`,
    )
  })

  it('reads the same on a worker thread (a file beyond QUICK_ONE_THREAD_BYTES)', async () => {
    ensureBuilt()
    const script = join(REPO_ROOT, 'out', 'main', COLUMNS_WORKER)
    const path = scatteredWalChain()
    const source = DirectSource.of(openDirect(path))
    const leaves = source.place({ fromSeq: -(2n ** 63n), toSeq: 2n ** 63n - 1n }).place
    const { handle, place } = source.handle(leaves)
    source.close()
    const onWorker = await runOnWorker(
      script,
      { handle, place: place!, capacity: 16, wanted: QUICK_COLUMNS },
      () => undefined,
    )
    expect(onWorker).toEqual(quick(path, true).part)
    expect(timesOf(onWorker)).toEqual(sqliteTimes(path))
  })

  it('keeps a quick pass on the calling thread up to QUICK_ONE_THREAD_BYTES, and only with the addon', () => {
    expect(quickOnThisThread(QUICK_COLUMNS, 2_257_440_768)).toBe(true)
    expect(quickOnThisThread(QUICK_COLUMNS, QUICK_ONE_THREAD_BYTES)).toBe(true)
    // Larger files go to workers (which read natively too): the calling thread answers calls.
    expect(quickOnThisThread(QUICK_COLUMNS, QUICK_ONE_THREAD_BYTES + 4096)).toBe(false)
    expect(quickOnThisThread(INDEX_COLUMNS, 4096)).toBe(false)
    expect(quickOnThisThread({ facts: false, integrity: true }, 4096)).toBe(false)
    process.env['BIJOTEL_NATIVE'] = '0'
    try {
      expect(quickOnThisThread(QUICK_COLUMNS, 4096)).toBe(false)
    } finally {
      delete process.env['BIJOTEL_NATIVE']
    }
  })

  it.skipIf(process.platform !== 'linux')(
    'asks the kernel for the file ahead of its reads, once per 8 MB',
    () => {
      const path = chains.write(
        Array.from({ length: 6000 }, (_, i) => ({
          seq: i + 1,
          ts: BASE_TS + BigInt(i) * SEC,
          body: 'x'.repeat(3000),
        })),
      )
      const chain = openDirect(path)
      const scanner = new RowScanner(layoutOf(chain))
      try {
        const addon = nativeAddon() as LeafPagesAddon
        const ps = chain.spec.pageSize
        const leaves = chain.leaves.pages
        const run = (from: number, to: number, advised: number): Float64Array => {
          const state = Float64Array.of(from, to, 0, advised)
          const n = 6000
          addon.leafTimes(
            Int32Array.of(scanner.pager.fd, scanner.pager.walFd),
            Int32Array.of(
              ps,
              chain.spec.dbPages,
              scanner.pageLayout.usable,
              scanner.pageLayout.ncols,
              scanner.col('timestamp_ns'),
            ),
            new Int32Array(0),
            new Float64Array(0),
            leaves,
            state,
            Buffer.alloc(64 * ps),
            new Float64Array(n),
            new BigInt64Array(n),
            new BigInt64Array(n),
            new Uint8Array(n),
          )
          return state
        }
        const AHEAD = 16 * 1024 * 1024
        const at = (l: number): number => (leaves[l]! - 1) * ps
        // The first read asks for 16 MB from where it starts; the hint is kept for the next call.
        expect(run(0, 1, 0)[3]).toBe(at(0) + AHEAD)
        // A NaN or negative watermark (not the addon's) starts again.
        expect(run(0, 1, NaN)[3]).toBe(at(0) + AHEAD)
        expect(run(0, 1, -5)[3]).toBe(at(0) + AHEAD)
        // Nothing new is asked while more than half of the 16 MB is still ahead.
        expect(run(0, 1, at(0) + AHEAD - 1)[3]).toBe(at(0) + AHEAD - 1)
        // A whole pass asks again as it goes: the last hint lies 8–16 MB beyond its last read.
        const whole = run(0, leaves.length, 0)[3]!
        expect(whole).toBeGreaterThan(at(leaves.length - 1) + AHEAD / 2 - 64 * ps)
        expect(whole).toBeLessThanOrEqual(at(leaves.length - 1) + AHEAD)
      } finally {
        scanner.close()
      }
    },
  )

  it('refuses arguments it cannot trust with an error, not a crash', () => {
    const chain = openDirect(dbPath('clean'))
    const scanner = new RowScanner(layoutOf(chain))
    try {
      const timer = new LeafTimer(
        nativeAddon() as LeafPagesAddon,
        scanner.pager,
        { ncols: 200, usable: 4000 },
        1,
      )
      const cols = {
        seq: new Float64Array(4),
        seqBig: new BigInt64Array(4),
        ts: new BigInt64Array(4),
        tsValid: new Uint8Array(4),
      }
      expect(() => timer.run(chain.leaves.pages, 0, 1, 0, cols)).toThrow(RangeError)
      const good = new LeafTimer(nativeAddon() as LeafPagesAddon, scanner.pager, scanner.pageLayout, 1)
      for (const [from, to, row] of [
        [NaN, 1, 0],
        [0, NaN, 0],
        [0, 1, NaN],
        [-1, 1, 0],
        [0, chain.leaves.pages.length + 1, 0],
        [0, 1, 5],
      ])
        expect(() => good.run(chain.leaves.pages, from!, to!, row!, cols), `${from} ${to} ${row}`).toThrow(
          RangeError,
        )
      expect(good.run(chain.leaves.pages, 0, 0, 4, cols).result).toBe(LEAF_TIMES.DONE)
    } finally {
      scanner.close()
    }
  })
})

/** The chain's leaf list by the addon (null: it left the tree) and by TypeScript (or their errors). */
function listings(path: string): { native: unknown; typescript: unknown; decided: boolean } {
  const attempt = (f: () => unknown): unknown => {
    try {
      return f()
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`
    }
  }
  let decided = false
  let native: unknown
  let typescript: unknown
  let chain
  try {
    chain = openDirect(path)
  } catch (e) {
    // Both listings of sqlite_master ran inside openDirect: compared through the table's own.
    return { native: String(e), typescript: String(e), decided: false }
  }
  const pager = new Pager(chain.spec)
  try {
    native = attempt(() => {
      const list = nativeLeafList(pager, chain.root)
      decided = list !== null
      return list ?? collectLeavesHere(pager, chain.root)
    })
    typescript = attempt(() => collectLeavesHere(pager, chain.root))
  } finally {
    pager.close()
  }
  return { native, typescript, decided }
}

describe.skipIf(!leafTimesAvailable())('native leaf list', () => {
  it('equals the TypeScript listing on every fixture, a WAL chain with scattered leaves, and keys near ±2^62', () => {
    // Keys of 9-byte varints and negative ones, in the interior pages.
    const keyed = (from: bigint): string =>
      chains.write(
        Array.from({ length: 3000 }, (_, i) => ({ seq: from + BigInt(i), ts: BASE_TS, body: '{}' })),
      )
    const paths = [...fixtureNames().map(dbPath), scatteredWalChain(), keyed(2n ** 62n), keyed(-(2n ** 62n))]
    let decided = 0
    for (const path of paths) {
      const r = listings(path)
      expect(r.native, path).toEqual(r.typescript)
      if (r.decided) decided++
    }
    expect(decided).toBeGreaterThan(10)
  })

  it('equals it, or fails as it does, on interior pages with seeded byte changes', () => {
    // Two interior levels: 25,000 short rows make ≈500 leaves under ≈2 interior pages and a root.
    const rows: SynthRow[] = Array.from({ length: 25_000 }, (_, i) => ({
      seq: i + 1,
      ts: BASE_TS + BigInt(i) * SEC,
      body: '{}',
      hash: 'h',
    }))
    const path = chains.write(rows)
    const chain = openDirect(path)
    const ps = chain.spec.pageSize
    const original = readFileSync(path)
    const interior = pagesWhere(original, ps, (_, kind) => kind === 0x05)
    expect(interior.length).toBeGreaterThan(2)
    const first = listings(path)
    expect(first.decided).toBe(true)
    expect(first.native).toEqual(first.typescript)
    const rng = new Rng(0x1ea5)
    let refusals = 0
    let decided = 0
    const changes = (page: Buffer, n: number): void => {
      const cells = page.readUInt16BE(3)
      for (let c = rng.int(1, 3); c > 0; c--) {
        // (an earlier change may have moved the pointers: writes stay inside the page)
        const cell = Math.min(ps - 4, page.readUInt16BE(12 + 2 * rng.int(0, Math.max(1, cells) - 1)))
        switch (rng.int(0, 5)) {
          case 0: // a child pointer: out of range, to itself, to another page, to page 1
            page.writeUInt32BE(
              rng.pick([0, 1, n, rng.int(2, original.length / ps), 0x7fffffff, 0xffffffff]),
              cell,
            )
            break
          case 1: // the right-most pointer
            page.writeUInt32BE(rng.pick([0, n, rng.int(2, original.length / ps), 0xffffffff]), 8)
            break
          case 2: // the cell count: zero, one, beyond the page
            page.writeUInt16BE(rng.pick([0, 1, cells + 1, 2100, 0xffff]), 3)
            break
          case 3: // the page type
            page[0] = rng.pick([0x02, 0x0a, 0x0d, 0x00, 0xff])
            break
          case 4: // a cell pointer past the page's end, or into the header
            page.writeUInt16BE(
              rng.pick([ps - 4, ps - 1, 0, 3, 0xffff]),
              12 + 2 * rng.int(0, Math.max(1, cells) - 1),
            )
            break
          default: // a key varint: long, negative, running on
            page.fill(
              rng.pick([0xff, 0x80, 0x00]),
              Math.min(ps, cell + 4),
              Math.min(ps, cell + 4 + rng.int(1, 9)),
            )
        }
      }
    }
    for (const { path: mutated, k } of pageMutants(original, ps, interior, 150, rng, scratch.dir, changes)) {
      const r = listings(mutated)
      expect(r.native, `case ${k}`).toEqual(r.typescript)
      if (r.decided) decided++
      else refusals++
    }
    // Both outcomes were reached: lists the addon made, and trees it left to TypeScript.
    expect(decided).toBeGreaterThan(10)
    expect(refusals).toBeGreaterThan(10)
  })
})
