// Test helper: the recovery differential (issue 33). What recovery reads as the LIVE database of a
// chain folder is held to SQLite's view of a copy of it (better-sqlite3 in a temporary folder: it
// recovers the WAL or rolls the hot journal back, then checkpoints, so the copy's file holds page
// for page what SQLite reads):
// - pages: recovery's current view (../../../src/main/recovery/pages.ts: the reader's Pager) of every
//   page 1..page_count is SQLite's page byte for byte; where the direct reader opens the folder, its
//   own Pager reads the same bytes;
// - which pages are what: the freelist recovery reads (and carves whole) is as long as PRAGMA
//   freelist_count, disjoint from every b-tree page dbstat lists, and with them (and the lock-byte
//   page) covers 1..page_count — so no live page is carved as free, no free page taken for live;
// - live rows: recovery's live chain (the reader's, or the copy's where the reader declines) holds
//   each row SQLite reads, with its hashes, on a leaf dbstat lists for the chain table, its first and
//   last seq SQLite's;
// - the search: no row SQLite reads live is reported recovered (same seq, same hmac_hash and
//   canonical_hash), and nothing throws but a one-line AuditError.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { copyWithSideFiles } from './fixtures'
import { join } from 'node:path'
import { AuditError } from '../../../src/main/base/errors'
import { openDirect, type DirectChain } from '../../../src/main/chain/direct/open'
import { Pager } from '../../../src/main/chain/direct/pager'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { readFreelist } from '../../../src/main/chain/sqlite/freelist'
import { lockPage } from '../../../src/main/chain/sqlite/header'
import { Unsupported } from '../../../src/main/chain/sqlite/decline'
import { directLive } from '../../../src/main/recovery/live'
import { openPages } from '../../../src/main/recovery/pages'
import { recoverPath } from '../../../src/main/recovery/verdict'
import { closeEvidence, openRecoveryEvidence } from './recovery-files'

export interface OracleRow {
  seq: bigint
  canonical: string | null
  prev: string | null
  hmac: string | null
}

export interface SqliteView {
  pageSize: number
  pageCount: number
  freelistCount: number
  /** Every page of a b-tree (tables, indexes, overflow), as dbstat lists them. */
  btreePages: Set<number>
  /** The chain table's leaf pages. */
  chainLeaves: Set<number>
  rows: OracleRow[]
  /** The database file after SQLite's recovery/rollback and a checkpoint: its pages as SQLite reads them. */
  bytes: Buffer
}

/** SQLite's view of the folder of `path`, from a copy under `scratch`; a string where SQLite fails. */
export function sqliteView(path: string, scratch: string): SqliteView | string {
  const dir = mkdtempSync(join(scratch, 'sqlite-view-'))
  const copy = join(dir, 'chain.db')
  try {
    const real = realpathSync(path)
    copyFileSync(real, copy)
    for (const side of ['-wal', '-journal'])
      if (existsSync(real + side) && statSync(real + side).isFile()) copyFileSync(real + side, copy + side)
    const db = new Database(copy, { fileMustExist: true })
    try {
      db.defaultSafeIntegers(true)
      const num = (pragma: string): number => Number(db.pragma(pragma, { simple: true }) as bigint)
      const stat = db.prepare('SELECT name, pageno, pagetype FROM dbstat').all() as {
        name: string
        pageno: bigint
        pagetype: string
      }[]
      const rows = db
        .prepare('SELECT seq, canonical_hash, prev_hash, hmac_hash FROM chain ORDER BY seq')
        .all() as { seq: bigint; canonical_hash: string; prev_hash: string; hmac_hash: string }[]
      const view = {
        pageSize: num('page_size'),
        pageCount: num('page_count'),
        freelistCount: num('freelist_count'),
        btreePages: new Set(stat.map((s) => Number(s.pageno))),
        chainLeaves: new Set(
          stat.filter((s) => s.name === 'chain' && s.pagetype === 'leaf').map((s) => Number(s.pageno)),
        ),
        rows: rows.map((r) => ({
          seq: r.seq,
          canonical: r.canonical_hash,
          prev: r.prev_hash,
          hmac: r.hmac_hash,
        })),
      }
      if (db.pragma('journal_mode', { simple: true }) === 'wal') db.pragma('wal_checkpoint(TRUNCATE)')
      db.close()
      return { ...view, bytes: readFileSync(copy) }
    } finally {
      if (db.open) db.close()
    }
  } catch (e) {
    return `SQLite: ${(e as Error).message}`
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface LiveDiff {
  /** Whether the direct reader opened the folder (else it declined: a hot journal, say). */
  direct: boolean
  /** Disagreements with SQLite; empty when recovery's live view is SQLite's. */
  failures: string[]
}

/** `copyPath`: a copy SQLite rolled back, for the live rows where the direct reader declines. */
function liveChainOf(path: string, scratch: string): { chain: DirectChain; direct: boolean; done(): void } {
  try {
    const chain = openDirect(path)
    return { chain, direct: true, done: () => chain.close() }
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e
  }
  const dir = mkdtempSync(join(scratch, 'live-copy-'))
  const copy = join(dir, 'chain.db')
  const real = realpathSync(path)
  copyWithSideFiles(real, copy)
  // SQLite rolls the journal back (or recovers the WAL) on its first read, as the copy path does.
  const db = new Database(copy)
  db.prepare('SELECT count(*) FROM chain').get()
  db.close()
  const chain = openDirect(copy)
  return {
    chain,
    direct: false,
    done: () => {
      chain.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Recovery's view of the live database of `path` against SQLite's `view` (see above). */
export async function compareLive(
  path: string,
  view: SqliteView,
  keys: KeyMaterial[],
  scratch: string,
): Promise<LiveDiff> {
  const failures: string[] = []
  const fail = (s: string): void => {
    if (failures.length < 12) failures.push(s)
  }
  const { pageSize, pageCount } = view
  const lock = lockPage(pageSize)
  const files = openRecoveryEvidence(path)
  const live = liveChainOf(path, scratch)
  try {
    const store = openPages(files, pageSize)
    const readerPager = live.direct ? new Pager(live.chain.spec) : null
    for (let n = 1; n <= pageCount; n++) {
      if (n === lock) continue
      const theirs = view.bytes.subarray((n - 1) * pageSize, n * pageSize)
      const mine = store.current(n)
      if (!mine || !mine.equals(theirs))
        fail(`page ${n}: recovery's current view ${mine ? 'differs from' : 'lacks'} SQLite's`)
      if (readerPager && !readerPager.pageCopy(n).equals(theirs))
        fail(`page ${n}: the reader's pager differs from SQLite's`)
    }
    if (store.current(pageCount + 1) !== null && !store.journal.hot)
      fail(`page ${pageCount + 1}: past SQLite's page count, yet in recovery's current view`)
    const free = readFreelist(store.current, pageSize, pageCount)
    const freePages = [...free.leaves, ...free.trunks.keys()]
    if (freePages.length !== view.freelistCount)
      fail(
        `recovery reads ${freePages.length} freelist pages, SQLite's freelist_count is ${view.freelistCount}`,
      )
    for (const p of freePages)
      if (view.btreePages.has(p)) fail(`page ${p}: a b-tree page to SQLite, free to recovery`)
    const covered = new Set([...view.btreePages, ...freePages])
    for (let n = 1; n <= pageCount; n++)
      if (n !== lock && !covered.has(n))
        fail(`page ${n}: neither a b-tree page to SQLite nor free to recovery`)

    const chain = directLive(live.chain)
    try {
      const seqs = view.rows.map((r) => r.seq)
      if (chain.first !== (seqs[0] ?? null) || chain.last !== (seqs.at(-1) ?? null))
        fail(`recovery's live chain spans ${chain.first}..${chain.last}, SQLite's ${seqs[0]}..${seqs.at(-1)}`)
      for (const r of view.rows) {
        const mine = chain.row(r.seq)
        if (!mine || mine.canonical !== r.canonical || mine.prev !== r.prev || mine.hmac !== r.hmac)
          fail(`seq ${r.seq}: recovery's live row ${mine ? 'differs from' : 'is missing, unlike'} SQLite's`)
        const leaf = chain.pageOf(r.seq)
        // Where the reader declined, the live rows are the rolled-back copy's: its pages are SQLite's.
        if (leaf === null || !view.chainLeaves.has(leaf))
          fail(`seq ${r.seq}: recovery places it on page ${leaf}, not a chain leaf to SQLite`)
      }
    } finally {
      chain.close()
    }
  } finally {
    live.done()
    closeEvidence(files)
  }

  failures.push(...(await searchFailures(path, view.rows, keys)).slice(0, 12 - failures.length))
  return { direct: live.direct, failures }
}

/**
 * The whole search of `path` (recoverPath: the reader's open, or the declined path): no row of
 * `rows` (what SQLite reads live) is reported recovered, and an error is one AuditError line.
 */
export async function searchFailures(
  path: string,
  rows: OracleRow[],
  keys: KeyMaterial[],
): Promise<string[]> {
  const failures: string[] = []
  try {
    const result = await recoverPath(path, keys)
    const byLive = new Map(rows.map((r) => [`${r.seq}`, r]))
    for (const r of result.rows) {
      const l = r.seq === null ? undefined : byLive.get(r.seq_exact ?? String(r.seq))
      if (l && l.hmac === r.hmac_hash && l.canonical === r.canonical_hash)
        failures.push(
          `seq ${r.seq}: a live row reported recovered (${r.status}, ${r.source.file} page ${r.source.page})`,
        )
    }
  } catch (e) {
    if (!(e instanceof AuditError) || e.message.includes('\n'))
      failures.push(`the search threw: ${(e as Error).stack ?? String(e)}`)
  }
  return failures
}
