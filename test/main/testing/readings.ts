// Test helper: what a chain folder reads as, to SQLite (the oracle) and to the direct reader, in one
// comparable form: every row of the chain table in scan order, rowid first, then every column.
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openDirect, type DirectChain } from '../../../src/main/chain/direct/open'
import { RowScanner } from '../../../src/main/chain/direct/scan'
import type { OpenOptions } from '../../../src/main/chain/evidence-files'
import { AuditError } from '../../../src/main/base/errors'

export type Reading =
  | { kind: 'rows'; rows: unknown[][]; /** SQLite's column names (sqliteReading only). */ columns?: string[] }
  /**
   * SQLite failed (corrupt, not a database…) reading every column; `count` is its count(*) of the
   * table's cells all the same, when it gives one (it walks the b-tree without decoding records).
   */
  | { kind: 'error'; message: string; count?: number }
  /** The direct reader declined the file (Unsupported, or any non-AuditError on the way). */
  | { kind: 'declined'; message: string }
  /** The open step refused the folder with a one-line AuditError. */
  | { kind: 'refused'; code: string; message: string }

/**
 * SQLite's reading, as the writer's next connection would see the folder: the chain (its real
 * path: SQLite resolves links) and the side files SQLite names from that path are copied into a
 * folder under `scratch`, then opened read-write (so a hot journal is rolled back and the WAL
 * recovered) and read with a plain scan of the table (NOT INDEXED). Side files that are not
 * regular files are not copied: callers do not ask SQLite about those (it would fail or wait on
 * them).
 */
export function sqliteReading(path: string, scratch: string): Reading {
  const dir = mkdtempSync(join(scratch, 'oracle-'))
  const copy = join(dir, 'chain.db')
  let real: string
  try {
    real = realpathSync(path)
    copyFileSync(real, copy)
  } catch (e) {
    return { kind: 'error', message: (e as Error).message }
  }
  // The -shm too: SQLite's first connection rebuilds it (wal.c walIndexRecover), whatever it says.
  for (const side of ['-wal', '-journal', '-shm']) {
    try {
      if (statSync(real + side).isFile()) copyFileSync(real + side, copy + side)
    } catch {
      // absent, or a link to nothing: SQLite finds no such file either
    }
  }
  let db: Database.Database | null = null
  let count: number | undefined
  try {
    db = new Database(copy, { fileMustExist: true })
    try {
      count = db.prepare('SELECT count(*) FROM chain NOT INDEXED').pluck().get() as number
    } catch {
      count = undefined
    }
    // The table's b-tree (NOT INDEXED): an index that covers the scan is evidence too, and the
    // planner may take it instead (./mutations-nine.ts schema.index).
    const stmt = db.prepare('SELECT rowid, * FROM chain NOT INDEXED').raw(true).safeIntegers(true)
    const rows = stmt.all() as unknown[][]
    return { kind: 'rows', rows, columns: stmt.columns().map((c) => c.name) }
  } catch (e) {
    return { kind: 'error', message: (e as Error).message, ...(count === undefined ? {} : { count }) }
  } finally {
    db?.close()
  }
}

/** Every row of an opened chain in scan order, as sqliteReading gives them. */
export function directRows(chain: DirectChain): unknown[][] {
  const s = new RowScanner(chain)
  const out: unknown[][] = []
  try {
    s.scan(0, chain.leaves.pages.length, (c) => {
      const row: unknown[] = [c.rowidBig ?? BigInt(c.rowid)]
      for (let i = 0; i < chain.ncols; i++) row.push(i === chain.seqColumn ? row[0] : c.valueBig(i))
      out.push(row)
    })
  } finally {
    s.close()
  }
  return out
}

/** A reading without SQLite's column names: what the direct reader's reading is compared with. */
export function withoutNames(r: Reading): Reading {
  if (r.kind !== 'rows') return r
  const { columns: _names, ...rest } = r
  return rest
}

/** The direct reader's reading of the folder (read-only, in place). */
export function directReading(path: string, opts: OpenOptions = {}): Reading {
  let chain: DirectChain
  try {
    chain = openDirect(path, opts)
  } catch (e) {
    if (e instanceof AuditError) return { kind: 'refused', code: e.code, message: e.message }
    return { kind: 'declined', message: (e as Error).message }
  }
  try {
    return { kind: 'rows', rows: directRows(chain) }
  } catch (e) {
    if (e instanceof AuditError) return { kind: 'refused', code: e.code, message: e.message }
    return { kind: 'declined', message: (e as Error).message }
  } finally {
    chain.close()
  }
}
