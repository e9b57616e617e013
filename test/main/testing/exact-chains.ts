// Test helper: small chain folders of every shape the direct reader meets, written with SQLite in a
// folder the suite owns — both journal modes, page sizes 512..65536, reserved bytes at the end of
// each page, bodies that overflow, trees several levels deep, WAL files holding several commits,
// hot rollback journals. Rows are sealed under KEY, so `verify` judges them.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdirSync, openSync, closeSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { appendRows, CHAIN_SCHEMA, GENESIS, spanRow, type RowSpec } from '../reliability/chainkit'

export const KEY = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex')
export const KEY_HEX = KEY.toString('hex')

export interface ChainShape {
  rows: number
  pageSize: number
  /** WAL mode, with the newest rows (walRows, in walCommits transactions) only in the -wal. */
  wal: boolean
  walRows: number
  walCommits: number
  /** Extra bytes in each body (bodies past the page's local payload go to overflow pages). */
  bodyBytes: number
  /** Reserved bytes at the end of every page (file format §1.3.4). */
  reserved: number
  /** The database text encoding (file format §1.3.12, offset 56); UTF-8 when absent. */
  encoding?: 'UTF-8' | 'UTF-16le' | 'UTF-16be'
}

export const SMALL: ChainShape = {
  rows: 40,
  pageSize: 4096,
  wal: false,
  walRows: 0,
  walCommits: 0,
  bodyBytes: 0,
  reserved: 0,
}

/** Rows 1..n of a chain whose bodies carry `pad` extra bytes. */
export function rowsOf(n: number, pad: number, from = 0): RowSpec[] {
  const t0 = 1_764_000_000_000_000_000n
  const out: RowSpec[] = []
  for (let i = from; i < from + n; i++) {
    const attributes: Record<string, unknown> = { 'gen_ai.provider.name': `p${i % 3}`, i }
    if (pad > 0) attributes['pad'] = 'x'.repeat(pad + (i % 7) * 13)
    out.push(spanRow({ timestamp_ns: t0 + BigInt(i) * 1_000_000_000n, attributes }))
  }
  return out
}

/** An empty database file of `pageSize` pages with `reserved` bytes kept at the end of each page. */
function emptyDatabase(path: string, pageSize: number, reserved: number): void {
  const db = new Database(path)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma('user_version = 1')
  db.close()
  if (reserved === 0) return
  // Page 1 holds no cell yet: its cell content area starts at the usable size (0 stands for
  // 65536). SQLite keeps the reserve of a file it opens.
  const fd = openSync(path, 'r+')
  try {
    const head = Buffer.alloc(108)
    readSync(fd, head, 0, 108, 0)
    head[20] = reserved
    head.writeUInt16BE((pageSize - reserved) & 0xffff, 105)
    writeSync(fd, head, 0, 108, 0)
  } finally {
    closeSync(fd)
  }
}

let made = 0

/**
 * A chain folder `dir` holding chain.db (and chain.db-wal in WAL mode, copied while the writer still
 * had it open: closing would checkpoint it away). Returns the chain's path.
 */
export function writeChainFolder(dir: string, shape: ChainShape): string {
  mkdirSync(dir, { recursive: true })
  const work = join(dir, `..`, `writer-${process.pid}-${++made}`)
  mkdirSync(work, { recursive: true })
  const src = join(work, 'chain.db')
  emptyDatabase(src, shape.pageSize, shape.reserved)
  const db = new Database(src)
  db.defaultSafeIntegers(true)
  const out = join(dir, 'chain.db')
  try {
    db.pragma(`journal_mode = ${shape.wal ? 'WAL' : 'DELETE'}`)
    db.pragma('wal_autocheckpoint = 0')
    // Taken while the file has no schema yet: its encoding field (offset 56) is written with the
    // first table (lang_pragma.html#pragma_encoding).
    if (shape.encoding) db.pragma(`encoding = '${shape.encoding}'`)
    db.exec(CHAIN_SCHEMA)
    const walRows = shape.wal ? Math.min(shape.walRows, shape.rows) : 0
    let head = appendRows(db, KEY, rowsOf(shape.rows - walRows, shape.bodyBytes), GENESIS)
    if (shape.wal) {
      db.pragma('wal_checkpoint(TRUNCATE)')
      const commits = Math.max(1, shape.walCommits)
      let done = shape.rows - walRows
      for (let c = 0; c < commits && walRows > 0; c++) {
        const n = c === commits - 1 ? shape.rows - done : Math.floor(walRows / commits)
        head = appendRows(db, KEY, rowsOf(n, shape.bodyBytes, done), head)
        done += n
      }
      copyFileSync(src, out)
      if (existsSync(`${src}-wal`)) copyFileSync(`${src}-wal`, `${out}-wal`)
    }
  } finally {
    db.close()
  }
  if (!shape.wal) copyFileSync(src, out)
  return out
}

/**
 * A rollback-mode chain folder caught mid-transaction: `change` runs inside a transaction on the
 * writer with a page cache of a few pages, so SQLite spills changed pages into the file after
 * syncing the journal; the file and its hot journal are copied at that moment (a crash), then the
 * writer rolls back. Every SQLite that opens the copy read-write rolls the journal back first.
 */
export function hotJournalFolder(
  dir: string,
  shape: ChainShape,
  change: (db: Database.Database) => void,
  before?: (db: Database.Database) => void,
): string {
  const src = writeChainFolder(join(dir, '..', `hot-src-${process.pid}-${++made}`), { ...shape, wal: false })
  mkdirSync(dir, { recursive: true })
  const out = join(dir, 'chain.db')
  const db = new Database(src)
  db.defaultSafeIntegers(true)
  try {
    before?.(db)
    db.pragma('cache_size = 2')
    db.exec('BEGIN IMMEDIATE')
    change(db)
    // Touch every page of the table so the cache spills whatever `change` dirtied.
    db.exec('UPDATE chain SET span_kind = span_kind')
    copyFileSync(src, out)
    copyFileSync(`${src}-journal`, `${out}-journal`)
    db.exec('ROLLBACK')
  } finally {
    db.close()
  }
  return out
}

/** Rows to tamper with, by seq: each kind of change a verify must name. */
export interface Tampering {
  /** A space appended to the body: its hash no longer agrees. */
  body: number[]
  /** span_name set to 'forged': the column no longer agrees with the sealed body. */
  name: number[]
  /** The first byte of prev_hash changed: the link to the row before is broken. */
  link: number[]
}

/** `path` (a chain written here) with the rows of `t` changed in place through SQLite. */
export function tamperRows(path: string, t: Tampering): void {
  const db = new Database(path)
  try {
    const list = (seqs: number[]): string => seqs.map((s) => String(Math.trunc(s))).join(', ')
    db.prepare(`UPDATE chain SET canonical_body = canonical_body || ' ' WHERE seq IN (${list(t.body)})`).run()
    db.prepare(`UPDATE chain SET span_name = 'forged' WHERE seq IN (${list(t.name)})`).run()
    db.prepare(
      `UPDATE chain SET prev_hash = 'ab' || substr(prev_hash, 3) WHERE seq IN (${list(t.link)})`,
    ).run()
  } finally {
    db.close()
  }
}
