// A private copy's chain table rewritten into a file without auto-vacuum, for the readers that follow
// page links only. In an auto-vacuum file (file-format §1.3 offsets 52 and 64) SQLite may take an
// overflow chain's next page from the pointer map instead of the page's own link (btree.c
// getOverflowPage: the guess ovfl+1 is taken when its pointer-map entry says PTRMAP_OVERFLOW2 from
// ovfl), so the direct reader declines such files. SQLite reads the copy's rows as it always does
// and writes them into a new file made with the chain table's own CREATE TABLE (and its
// sqlite_sequence row): the same rows, rowids (seq is the INTEGER PRIMARY KEY) and sequence, in a
// file with no pointer map; only its page size and numbers differ. Only the chain table is copied, and only
// when its values claim no more bytes than the copy holds (octet_length reads a value's size from
// the record header alone, vdbe.c OP_Column OPFLAG_BYTELENARG): an overflow chain that comes back
// on itself would otherwise be copied round and round (../chain/source/value-budget.ts).
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { oneLine } from '../base/errors'
import { quoteIdent } from './sqlite/ident'

export interface PlainView {
  path: string
  /** Removes the view and its folder. */
  release(): void
}

/** Why the rows cannot be copied, or null: the chain table's values and their claimed size. */
function refuseCopy(db: Database.Database, copyBytes: number): string | null {
  const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').all('chain') as { name: string }[]).map(
    (c) => `coalesce(octet_length(${quoteIdent(c.name)}), 0)`,
  )
  if (cols.length === 0) return 'it has no chain table'
  const claimed = db
    .prepare(`SELECT coalesce(sum(${cols.join(' + ')}), 0) FROM chain`)
    .pluck()
    .get() as number
  return claimed > copyBytes
    ? `its chain values claim ${claimed} bytes in a file of ${copyBytes}: overflow pages that come back on themselves`
    : null
}

/** The evidence's CREATE TABLE for the chain, run alone in `out`; anything else is refused. */
function createChainTable(out: Database.Database, sql: unknown): void {
  if (typeof sql !== 'string' || !/^CREATE TABLE\s/i.test(sql))
    throw new Error('the chain table is not defined by a CREATE TABLE statement')
  let create: Database.Statement
  try {
    create = out.prepare(sql)
  } catch (e) {
    if (/more than one statement/.test(oneLine(e)))
      throw new Error(
        "the chain's CREATE TABLE in sqlite_master is followed by other statements (SQLite never writes that; they were not run)",
        { cause: e },
      )
    throw e
  }
  if (create.reader) throw new Error('the chain table is not defined by a CREATE TABLE statement')
  create.run()
  const made = out
    .prepare("SELECT type FROM main.sqlite_master WHERE name = 'chain' COLLATE NOCASE")
    .pluck()
    .get()
  if (made !== 'table') throw new Error('its CREATE TABLE statement made no chain table')
}

/**
 * The chain table of `copyPath` (a private copy, never the evidence: `evidence` is the evidence's
 * fstat, and a copy with its device and inode is refused) rewritten without auto-vacuum in a new
 * folder beside it; or why it could not be.
 */
export function plainView(copyPath: string, evidence: { dev: number; ino: number }): PlainView | string {
  const st = statSync(copyPath)
  if (st.dev === evidence.dev && st.ino === evidence.ino) return 'the copy is the evidence itself'
  const dir = mkdtempSync(join(dirname(copyPath), 'plain-view-'))
  const release = (): void => rmSync(dir, { recursive: true, force: true })
  const path = join(dir, 'chain.db')
  let src: Database.Database | null = null
  let out: Database.Database | null = null
  try {
    src = new Database(copyPath, { readonly: true, fileMustExist: true })
    const refused = refuseCopy(src, st.size)
    if (refused) {
      release()
      return `SQLite could not rewrite it without auto-vacuum: ${refused}`
    }
    const sql = src
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'chain' COLLATE NOCASE")
      .pluck()
      .get() as string
    const seq = src.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").pluck().get()
    src.close()
    src = null
    out = new Database(path)
    // The largest pages: page 1 then holds the schema's two rows whatever their length (at 512 bytes
    // a long CREATE TABLE left page 1 an interior page with no cell, which the direct reader declines).
    out.pragma('page_size = 65536')
    out.pragma('auto_vacuum = NONE')
    // The CREATE TABLE's CHECK constraints are the evidence's expressions too: one false for every
    // row would refuse honest rows, one like `hex(zeroblob(1e9))` costs a gigabyte a row. The copy
    // below is SQLite's transfer (insert.c xferOptimization), which skips CHECKs the source table
    // shares; should it not apply, the rows are still copied unjudged (ignore_check_constraints).
    out.pragma('ignore_check_constraints = ON')
    // The schema's text is the evidence's: SQLite's open parses only its first statement
    // (prepare.c sqlite3InitCallback ignores the tail), so `…; ATTACH '/any/path' AS x; CREATE TABLE
    // x.t(a)` opens as a plain table. It runs here as that one CREATE TABLE alone (better-sqlite3's
    // prepare refuses a second statement), before anything is attached: nothing it names can be written.
    createChainTable(out, sql)
    out.prepare('ATTACH ? AS src').run(copyPath)
    out.transaction(() => {
      // A plain SELECT * into a table of the same definition copies each record as it is
      // (insert.c xferOptimization).
      out!.exec('INSERT INTO main.chain SELECT * FROM src.chain')
      if (seq === 1) {
        out!.exec("DELETE FROM main.sqlite_sequence WHERE name = 'chain' COLLATE NOCASE")
        out!.exec(
          "INSERT INTO main.sqlite_sequence SELECT name, seq FROM src.sqlite_sequence WHERE name = 'chain' COLLATE NOCASE",
        )
      }
    })()
    out.exec('DETACH src')
    return { path, release }
  } catch (e) {
    src?.close()
    out?.close()
    src = out = null
    release()
    return `SQLite could not rewrite it without auto-vacuum (${oneLine(e)})`
  } finally {
    src?.close()
    out?.close()
  }
}
