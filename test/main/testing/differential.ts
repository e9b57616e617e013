// Test helper: the differential harness of issue 23. Small chain folders of every shape are
// generated, copied and mutated (./mutations.ts); for every mutant the direct reader's rows (or its
// decline) are compared with SQLite's rows from a copy of the folder opened as the writer would open
// it (./readings.ts). A mutant the direct reader reads differently without declining is a failure;
// so is a verdict that says VALID over fewer rows than SQLite sees, by either reader. Recovery's
// reading of the live pages (./live-carve.ts) is compared with SQLite's on every n-th mutant too: a
// live record recovery reads otherwise than SQLite, or a different list of live cells, is a failure.
import Database from 'better-sqlite3'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { hotJournalFolder, KEY_HEX, SMALL, writeChainFolder, type ChainShape } from './exact-chains'
import { basePages, MUTATIONS, type BasePages } from './mutations'
import { MORE_MUTATIONS } from './mutations-more'
import { SEVEN_MUTATIONS } from './mutations-seven'
import { NINE_MUTATIONS } from './mutations-nine'
import { TEN_MUTATIONS } from './mutations-ten'
import { ELEVEN_MUTATIONS } from './mutations-eleven'
import { searchFailures, sqliteView } from './recovery-differential'
import { compareLiveCarving } from './live-carve'
import { directReading, sqliteReading, type Reading } from './readings'

interface Base {
  name: string
  dir: string
  pages: BasePages
  /** SQLite's rows of the base as written (every base verifies VALID over them). */
  rows: unknown[][] | null
  columns: string[] | null
}

const SHAPES: [string, ChainShape][] = [
  ['delete-4k', SMALL],
  ['delete-512-deep', { ...SMALL, rows: 220, pageSize: 512, bodyBytes: 100 }],
  [
    'wal-1k-overflow',
    { ...SMALL, rows: 90, pageSize: 1024, wal: true, walRows: 40, walCommits: 3, bodyBytes: 1500 },
  ],
  ['delete-64k-overflow', { ...SMALL, rows: 12, pageSize: 65536, bodyBytes: 70000 }],
  [
    'wal-4k-reserved',
    { ...SMALL, rows: 80, wal: true, walRows: 30, walCommits: 2, bodyBytes: 5000, reserved: 16 },
  ],
  ['delete-8k-reserved', { ...SMALL, rows: 60, pageSize: 8192, reserved: 32, bodyBytes: 300 }],
  ['wal-2k-commits', { ...SMALL, rows: 200, pageSize: 2048, wal: true, walRows: 100, walCommits: 6 }],
  ['delete-16k', { ...SMALL, rows: 50, pageSize: 16384, bodyBytes: 20000 }],
  ['wal-32k', { ...SMALL, rows: 30, pageSize: 32768, wal: true, walRows: 10, walCommits: 2 }],
  // Chains written in a UTF-16 database (file format §1.3.12): text columns stored as UTF-16.
  ['delete-1k-utf16le', { ...SMALL, rows: 60, pageSize: 1024, bodyBytes: 900, encoding: 'UTF-16le' }],
  [
    'wal-1k-utf16be',
    { ...SMALL, rows: 70, pageSize: 1024, wal: true, walRows: 30, walCommits: 3, encoding: 'UTF-16be' },
  ],
]

/** Generates the base folders under `root` (once per run). */
export function makeBases(root: string): Base[] {
  const bases: Base[] = []
  const pagesOf = (dir: string): BasePages => {
    // dbstat on a private copy: SQLite leaves a -shm beside whatever it opens.
    const probe = mkdtempSync(join(root, 'probe-'))
    cpSync(dir, probe, { recursive: true })
    try {
      return basePages(join(probe, 'chain.db'))
    } finally {
      rmSync(probe, { recursive: true, force: true })
    }
  }
  const add = (name: string, dir: string): void => {
    const honest = sqliteReading(join(dir, 'chain.db'), root)
    bases.push({
      name,
      dir,
      pages: pagesOf(dir),
      rows: honest.kind === 'rows' ? honest.rows : null,
      columns: honest.kind === 'rows' ? (honest.columns ?? null) : null,
    })
  }
  for (const [name, shape] of SHAPES) {
    const dir = join(root, 'bases', name)
    writeChainFolder(dir, shape)
    add(name, dir)
  }
  const hot = join(root, 'bases', 'hot-journal')
  hotJournalFolder(hot, { ...SMALL, rows: 60, pageSize: 1024 }, (db) =>
    db.exec("UPDATE chain SET hmac_hash = 'f' || substr(hmac_hash, 2) WHERE seq % 5 = 0"),
  )
  add('hot-journal', hot)
  // A freelist: a table filled and dropped (secure_delete off leaves its pages as they were).
  const free = join(root, 'bases', 'freelist')
  writeChainFolder(free, { ...SMALL, rows: 70, pageSize: 1024 })
  const db = new Database(join(free, 'chain.db'))
  db.exec(
    'CREATE TABLE junk (b BLOB); WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 40) INSERT INTO junk SELECT randomblob(700) FROM r; DROP TABLE junk',
  )
  db.close()
  add('freelist', free)
  return bases
}

export interface Tally {
  cases: number
  /** The direct reader read rows, equal to SQLite's. */
  same: number
  declined: number
  refused: number
  /** SQLite itself failed on the mutant. */
  sqliteErrors: number
  verdicts: number
  /**
   * Verdicts VALID over a chain whose full read (every column) SQLite calls malformed, while the
   * columns verify reads and count(*) are fine: SQLite's own checks depend on the columns asked for
   * (vdbe.c OP_Column checks a record's size only once its whole header is parsed).
   */
  validOverMalformed: number
  /** Mutants whose live pages recovery's carving path read and compared with SQLite's rows. */
  liveCompared: number
  /** Live chain records SQLite reads that recovery's carving path did not (a miss, not a misread). */
  liveMisses: number
  /** Mutants searched whole by recovery, its rows held to SQLite's live rows. */
  searched: number
}

export const ALL_MUTATIONS = [
  ...MUTATIONS,
  ...MORE_MUTATIONS,
  ...SEVEN_MUTATIONS,
  ...NINE_MUTATIONS,
  ...TEN_MUTATIONS,
  ...ELEVEN_MUTATIONS,
]

export interface DifferentialResult {
  total: Tally
  byMutation: Map<string, Tally>
  failures: string[]
}

const tally = (): Tally => ({
  cases: 0,
  same: 0,
  declined: 0,
  refused: 0,
  sqliteErrors: 0,
  verdicts: 0,
  validOverMalformed: 0,
  liveCompared: 0,
  liveMisses: 0,
  searched: 0,
})

const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

/** The verdict, or the error's one line. */
async function verdictOf(path: string, env?: Record<string, string>): Promise<VerifyVerdict | string> {
  try {
    return (await verifyFile(path, keys, env ? { env } : {})).verdict
  } catch (e) {
    return (e as Error).message
  }
}

function describeReading(r: Reading | null): string {
  if (r === null) return 'not asked'
  return r.kind === 'rows' ? `${r.rows.length} rows` : `${r.kind}: ${r.message}`
}

/**
 * Runs `cases` mutants from `seed` (or until `budgetMs` has passed), each on a private copy of a
 * base under `root`. `verifyEvery`: run both readers' verdicts on every n-th case.
 */
export async function runDifferential(opts: {
  root: string
  bases: Base[]
  cases: number
  seed: number
  budgetMs: number
  verifyEvery: number
  /** Compare recovery's reading of the live pages with SQLite's on every n-th case (0: never). */
  liveEvery?: number
  /**
   * Run the whole search (recover) on every n-th case (0: never): no row it reports recovered may be
   * one SQLite reads live, and it fails only in one line.
   */
  recoverEvery?: number
  /** The first case number (to reproduce one case: its number, and cases 1). */
  from?: number
  /** Keep the mutant folders (for a look at a failing case). */
  keep?: boolean
  /** Only the mutations of these names (all when absent or empty). */
  only?: readonly string[]
}): Promise<DifferentialResult> {
  const mutations = opts.only?.length
    ? ALL_MUTATIONS.filter((m) => opts.only!.includes(m.name))
    : ALL_MUTATIONS
  const t0 = Date.now()
  const total = tally()
  const byMutation = new Map<string, Tally>()
  const failures: string[] = []
  const first = opts.from ?? 0
  for (let k = first; k < first + opts.cases && Date.now() - t0 < opts.budgetMs; k++) {
    const rng = new Rng(opts.seed * 100_003 + k)
    const base = rng.pick(opts.bases)
    const dir = join(opts.root, `m-${opts.seed}-${k}`)
    let what: string | null = null
    let m = mutations[0]!
    for (let tries = 0; tries < 8 && what === null; tries++) {
      rmSync(dir, { recursive: true, force: true })
      cpSync(base.dir, dir, { recursive: true })
      m = rng.pick(mutations)
      what = m.apply(dir, rng, base.pages)
    }
    if (what === null) continue
    const t = byMutation.get(m.name) ?? tally()
    byMutation.set(m.name, t)
    const count = (f: (x: Tally) => void): void => [t, total].forEach(f)
    count((x) => x.cases++)
    const label = `seed ${opts.seed} case ${k}: ${base.name}, ${m.name} (${what})`
    const path = join(dir, 'chain.db')
    const direct = directReading(path)
    const oracle = m.noOracle ? null : sqliteReading(path, opts.root)
    if (oracle?.kind === 'error') count((x) => x.sqliteErrors++)
    if (direct.kind === 'rows') {
      if (oracle?.kind === 'rows' && isDeepStrictEqual(direct.rows, oracle.rows)) count((x) => x.same++)
      else
        failures.push(`${label}: direct read ${direct.rows.length} rows, SQLite ${describeReading(oracle)}`)
    } else count((x) => (direct.kind === 'refused' ? x.refused++ : x.declined++))
    if (opts.liveEvery && k % opts.liveEvery === 0 && !m.noOracle) {
      const live = compareLiveCarving(path, opts.root)
      if (live.kind === 'compared') {
        count((x) => x.liveCompared++)
        count((x) => (x.liveMisses += live.misses.length))
        for (const f of [...live.listing, ...live.misreads].slice(0, 3))
          failures.push(`${label}: live pages: ${f}`)
      }
    }
    if (opts.recoverEvery && k % opts.recoverEvery === 0 && !m.noOracle) {
      const view = sqliteView(path, opts.root)
      if (typeof view !== 'string') {
        count((x) => x.searched++)
        for (const f of (await searchFailures(path, view.rows, keys)).slice(0, 3))
          failures.push(`${label}: search: ${f}`)
      }
    }
    if (k % opts.verifyEvery === 0) {
      count((x) => x.verdicts++)
      // The rows SQLite sees: all of them read, else (a record malformed to a full read) its count.
      const seen =
        oracle?.kind === 'rows' ? oracle.rows.length : oracle?.kind === 'error' ? (oracle.count ?? -1) : -1
      for (const env of [undefined, { BIJOTEL_READER: 'sqlite' }]) {
        // The verdicts read the mutant folder itself; the oracle read a copy of it.
        const v = await verdictOf(path, env)
        // A break reported where SQLite reads the base's rows and column names unchanged is a false
        // accusation.
        if (
          typeof v !== 'string' &&
          !v.valid &&
          oracle?.kind === 'rows' &&
          isDeepStrictEqual(oracle.rows, base.rows) &&
          isDeepStrictEqual(oracle.columns, base.columns)
        )
          failures.push(
            `${label}: ${env ? 'copy path' : 'verify'} says BROKEN, SQLite reads the rows and columns as written`,
          )
        if (typeof v === 'string' || !v.valid) continue
        if (v.entries !== seen)
          failures.push(
            `${label}: ${env ? 'copy path' : 'verify'} says VALID over ${v.entries} rows, SQLite ${describeReading(oracle)}`,
          )
        else if (oracle?.kind === 'error') count((x) => x.validOverMalformed++)
      }
    }
    if (!opts.keep) rmSync(dir, { recursive: true, force: true })
  }
  return { total, byMutation, failures }
}

/** One line per mutation and a total, for the run's report. */
export function report(r: DifferentialResult): string {
  const line = (name: string, t: Tally): string =>
    `${name.padEnd(16)} ${String(t.cases).padStart(6)} cases: ${t.same} same rows, ${t.declined} declined, ${t.refused} refused, ${t.sqliteErrors} SQLite errors, ${t.verdicts} verdict pairs (${t.validOverMalformed} VALID where a full read is malformed), ${t.liveCompared} live-page comparisons (${t.liveMisses} records missed), ${t.searched} searched`
  return [...[...r.byMutation].sort().map(([n, t]) => line(n, t)), line('total', r.total)].join('\n')
}
