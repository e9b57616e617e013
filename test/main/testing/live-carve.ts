// Test helper: recovery's reading of LIVE pages against SQLite's (issue 33). Recovery's carving path
// (matchAt: the record matched from its anchor, overflow chains followed in the current view of the
// files, ../../../src/main/recovery/carve.ts) is run over every leaf page of the chain table as
// SQLite lists them (dbstat), on the files as they are; SQLite reads the same folder from a copy
// opened as the writer would open it (./readings.ts). Each live cell — in SQLite's scan order —
// is paired with SQLite's row at the same place:
// - a record recovery reads at a live cell must be SQLite's row there, field for field (rowid,
//   timestamp, the three hashes, the body's bytes): anything else is a misread;
// - a row SQLite reads that has the shape of a chain record (an integer timestamp, three 64-character
//   lowercase hex TEXT hashes, a TEXT or BLOB body) and that recovery does not read is a miss;
// - the cells recovery lists (tolerant b-tree page reading) must be as many, with the same rowids.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { headerPageSize } from '../../../src/main/chain/sqlite/header'
import { cellCount, headerOffset } from '../../../src/main/chain/sqlite/page'
import { decodeVarint, varintBig } from '../../../src/main/chain/sqlite/varint'
import { matchAt, type WalkBudget } from '../../../src/main/recovery/carve'
import { closeEvidence, type EvidenceFiles } from '../../../src/main/recovery/files'
import { openRecoveryEvidence as openEvidence } from './recovery-files'
import { recordLayout } from '../../../src/main/recovery/layout'
import { openPages } from '../../../src/main/recovery/pages'
import type { CarvedRecord } from '../../../src/main/recovery/record'

/** One row as SQLite reads it, with what decides whether it has a chain record's shape. */
interface OracleRow {
  rowid: bigint
  ts: bigint | number | null
  canonical: unknown
  prev: unknown
  hmac: unknown
  body: Buffer | null
  shaped: boolean
  /**
   * SQLite reads the whole record (every column). A record whose fields do not fill the cell's
   * payload exactly is corrupt to a full read (vdbe.c OP_Column checks the end of the last field
   * against the payload size once the whole header is parsed) while the columns SHAPED_SQL asks for
   * read fine: recovery's carving, which takes a cell's rowid only where the payload size equals the
   * record's, is not compared on such a row (recovery refuses the file: src/main/chain/sqlite/cell.ts).
   */
  whole: boolean
}

interface Oracle {
  pageSize: number
  /** The chain table's leaf pages in b-tree order, with their cell counts (dbstat). */
  leaves: { pageno: number; ncell: number }[]
  rows: OracleRow[]
  columns: Map<string, number>
}

export type LiveCarve =
  /** Compared: `cells` live cells, `read` of them read by recovery, and what went wrong. */
  | { kind: 'compared'; cells: number; read: number; misreads: string[]; misses: string[]; listing: string[] }
  /** Not comparable: SQLite fails on the folder, a hot journal, no chain table, the open step refuses. */
  | { kind: 'skipped'; why: string }

const SHAPED_SQL = `SELECT rowid AS rid, timestamp_ns, canonical_hash, prev_hash, hmac_hash,
  CAST(canonical_body AS BLOB) AS body,
  typeof(timestamp_ns) = 'integer'
  AND typeof(canonical_hash) = 'text' AND typeof(prev_hash) = 'text' AND typeof(hmac_hash) = 'text'
  AND length(CAST(canonical_hash AS BLOB)) = 64 AND length(CAST(prev_hash AS BLOB)) = 64
  AND length(CAST(hmac_hash AS BLOB)) = 64
  AND canonical_hash NOT GLOB '*[^0-9a-f]*' AND prev_hash NOT GLOB '*[^0-9a-f]*'
  AND hmac_hash NOT GLOB '*[^0-9a-f]*'
  AND typeof(canonical_body) IN ('text', 'blob') AS shaped
  FROM chain`

/** A hot rollback journal: SQLite rolls it back before reading, the carver reads the file as it is. */
function hotJournal(path: string): boolean {
  const j = `${realpathSync(path)}-journal`
  try {
    return statSync(j).isFile() && statSync(j).size > 0 && readFileSync(j)[0] !== 0
  } catch {
    return false
  }
}

/** SQLite's view, from a copy of the folder (the writer's next connection would see the same). */
function oracle(path: string, scratch: string): Oracle | string {
  const dir = mkdtempSync(join(scratch, 'live-oracle-'))
  const copy = join(dir, 'chain.db')
  let db: Database.Database | null = null
  try {
    const real = realpathSync(path)
    copyFileSync(real, copy)
    if (existsSync(`${real}-wal`) && statSync(`${real}-wal`).isFile())
      copyFileSync(`${real}-wal`, `${copy}-wal`)
    db = new Database(copy, { fileMustExist: true })
    const pageSize = db.pragma('page_size', { simple: true }) as number
    const info = db.prepare('PRAGMA table_info(chain)').all() as { cid: number; name: string }[]
    if (info.length === 0) return 'no chain table'
    const leaves = db
      .prepare("SELECT pageno, ncell FROM dbstat WHERE name = 'chain' AND pagetype = 'leaf' ORDER BY path")
      .all() as { pageno: number; ncell: number }[]
    const rows = (db.prepare(SHAPED_SQL).safeIntegers(true).all() as Record<string, unknown>[]).map(
      (r): OracleRow => ({
        rowid: r['rid'] as bigint,
        ts: r['timestamp_ns'] as bigint | number | null,
        canonical: r['canonical_hash'],
        prev: r['prev_hash'],
        hmac: r['hmac_hash'],
        body: (r['body'] as Buffer | null) ?? null,
        shaped: r['shaped'] === 1n,
        whole: true,
      }),
    )
    markBroken(db, rows)
    // dbstat reads a page it finds corrupt as no leaf, while the scan may still read its cells: where
    // SQLite's two views of the table disagree there is no oracle for the pairing.
    if (leaves.reduce((n, l) => n + l.ncell, 0) !== rows.length)
      return "SQLite's dbstat and its scan disagree"
    return { pageSize, leaves, rows, columns: new Map(info.map((c) => [c.name, c.cid])) }
  } catch (e) {
    return `SQLite: ${(e as Error).message}`
  } finally {
    db?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Rows a full read of every column refuses, in scan order (each failing row skipped past). */
function markBroken(db: Database.Database, rows: OracleRow[]): void {
  const all = db.prepare('SELECT * FROM chain NOT INDEXED LIMIT -1 OFFSET ?').raw(true)
  for (let from = 0; from < rows.length;) {
    let k = from
    try {
      for (const _ of all.iterate(from)) k++
      return
    } catch {
      if (k < rows.length) rows[k]!.whole = false
      from = k + 1
    }
  }
}

interface LiveCell {
  page: number
  /** Offset of the record (after the payload-size and rowid varints) in the page. */
  start: number
  rowid: bigint | null
}

function pageSizesDiffer(path: string, sqlitePageSize: number): boolean {
  const real = realpathSync(path)
  const header = headerPageSize(readFileSync(real).subarray(0, 100))
  if (header !== sqlitePageSize) return true
  try {
    const wal = readFileSync(`${real}-wal`)
    return wal.length >= 32 && wal.readUInt32BE(8) !== header
  } catch {
    return false
  }
}

/** Compares recovery's reading of the live cells of the chain at `path` with SQLite's (see above). */
export function compareLiveCarving(path: string, scratch: string): LiveCarve {
  if (hotJournal(path)) return { kind: 'skipped', why: 'hot journal' }
  const o = oracle(path, scratch)
  if (typeof o === 'string') return { kind: 'skipped', why: o }
  // A file whose header names another page size than SQLite reads at, or whose -wal's frames are of
  // another size than its header names (SQLite takes page 1 from the WAL, btree.c lockBtree): the
  // direct reader declines it, and recovery then searches its bytes as they are at the header's
  // size (src/main/recovery/declined.ts), never through a current view — there is no such reading
  // of recovery's to compare.
  if (pageSizesDiffer(path, o.pageSize))
    return { kind: 'skipped', why: 'the file header, the -wal and SQLite disagree on the page size' }
  const seq = o.columns.get('seq')
  let layout
  try {
    if (seq === undefined) throw new Error('no seq column')
    layout = recordLayout(o.columns, o.columns.size, seq)
  } catch (e) {
    return { kind: 'skipped', why: (e as Error).message }
  }
  let files: EvidenceFiles
  try {
    files = openEvidence(path)
  } catch (e) {
    return { kind: 'skipped', why: `open step: ${(e as Error).message}` }
  }
  const misreads: string[] = []
  const misses: string[] = []
  const listing: string[] = []
  let read = 0
  try {
    const store = openPages(files, o.pageSize)
    const page1 = store.current(1)
    if (!page1) return { kind: 'skipped', why: 'no page 1' }
    const usable = o.pageSize - page1[20]!
    const budget: WalkBudget = {
      maxPage: Math.max(store.filePages, store.wal.dbPages),
      left: 4 * (store.filePages + store.wal.frames.length) + 65536,
    }
    const cells: LiveCell[] = []
    const found = new Map<string, CarvedRecord>()
    for (const { pageno: n, ncell } of o.leaves) {
      const page = store.current(n)
      if (!page) {
        listing.push(`page ${n}: SQLite reads it, recovery's current view has no such page`)
        continue
      }
      const h = headerOffset(n)
      const count = cellCount(page, n, o.pageSize, -1, 'tolerant')
      if (count !== ncell) listing.push(`page ${n}: recovery reads ${count} cells, SQLite ${ncell}`)
      const starts = new Set<number>()
      // SQLite reads a cell wherever its pointer puts it in the page (btree.c findCell masks it
      // with the page size) and its local payload up to the page's end (fetchPayload): the reserved
      // bytes (offset 20) stop neither; the usable size only splits a payload (file format §1.6).
      const end = page.length
      for (let i = 0; i < count && h + 8 + 2 * i + 2 <= end; i++) {
        const ptr = page.readUInt16BE(h + 8 + 2 * i)
        const a = decodeVarint(page, ptr, end)
        const b = a > 0 ? decodeVarint(page, ptr + a, end) : 0
        cells.push({ page: n, start: ptr + a + b, rowid: b > 0 ? varintBig() : null })
        starts.add(ptr + a + b)
      }
      for (
        let x = page.indexOf(layout.anchor, 0);
        x >= 0 && x < end;
        x = page.indexOf(layout.anchor, x + 1)
      ) {
        const rec = matchAt(page, x, [store.current], usable, layout, budget)
        if (rec && starts.has(rec.start) && !found.has(`${n}:${rec.start}`))
          found.set(`${n}:${rec.start}`, rec)
      }
    }
    if (cells.length !== o.rows.length)
      listing.push(`recovery lists ${cells.length} live cells, SQLite reads ${o.rows.length} rows`)
    const pairs = Math.min(cells.length, o.rows.length)
    for (let k = 0; k < pairs; k++) {
      const cell = cells[k]!
      const row = o.rows[k]!
      const where = `page ${cell.page} offset ${cell.start} (SQLite rowid ${row.rowid})`
      if (cell.rowid !== row.rowid) listing.push(`${where}: recovery reads the cell's rowid as ${cell.rowid}`)
      const rec = found.get(`${cell.page}:${cell.start}`)
      if (!rec) {
        if (row.shaped) misses.push(`${where}: a chain record to SQLite, not read by recovery`)
        continue
      }
      read++
      // A column declared REAL reads a stored integer as a float (OP_RealAffinity): compared as SQLite
      // converts it.
      const ts = typeof row.ts === 'number' && rec.ts !== null ? Number(rec.ts) : rec.ts
      const mine = [rec.rowid, ts, rec.canonical, rec.prev, rec.hmac, rec.readBody()]
      const theirs = [row.rowid, row.ts, row.canonical, row.prev, row.hmac, row.body]
      if (!isDeepStrictEqual(mine, theirs) && row.whole)
        misreads.push(`${where}: recovery reads ${describe(mine)}, SQLite ${describe(theirs)}`)
    }
  } finally {
    closeEvidence(files)
  }
  return { kind: 'compared', cells: o.rows.length, read, misreads, misses, listing }
}

function describe(v: unknown[]): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'bigint'
      ? `${x}n`
      : (x as { type?: string } | null)?.type === 'Buffer'
        ? `<${(x as { data: number[] }).data.length} bytes>`
        : x,
  )
}
