// A private copy's chain table rewritten into a file without auto-vacuum, for the readers that follow
// page links only. In an auto-vacuum file (file-format §1.3 offsets 52 and 64) SQLite may take an
// overflow chain's next page from the pointer map instead of the page's own link (btree.c
// getOverflowPage: the guess ovfl+1 is taken when its pointer-map entry says PTRMAP_OVERFLOW2 from
// ovfl), so the direct reader declines such files; it declines as well a schema whose text it cannot
// replay alone though SQLite opens it (statements after the CREATE TABLE, which SQLite's open ignores).
// SQLite reads the copy's rows as it always does and writes them into a new file, its chain table
// made from the columns SQLite read (and its sqlite_sequence row): the same rows, rowids (seq is the
// INTEGER PRIMARY KEY) and sequence, in a file with no pointer map and a plain schema; only its page
// size and numbers differ. Only the chain table (read NOT INDEXED: the table's records, never an
// index's) and its sqlite_sequence row are copied, and only when their values and sqlite_sequence's
// claim no more bytes than the copy holds (octet_length reads a value's size from the record header
// alone, vdbe.c OP_Column OPFLAG_BYTELENARG): an overflow chain that comes back on itself would
// otherwise be copied round and round (../chain/source/value-budget.ts).
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { oneLine } from '../base/errors'
import { quoteIdent } from './sqlite/ident'

export interface PlainView {
  path: string
  /**
   * Whether the copy's table stores seq as a column of its own (seq not the rowid alias: a table
   * rebuilt as `seq INTEGER NOT NULL`, `seq INT PRIMARY KEY`, …): its records then hold seq's value
   * where the reference layout's hold NULL (file-format §2.1: an INTEGER PRIMARY KEY is stored as
   * NULL in the record, its value is the rowid).
   */
  seqStored: boolean
  /** Removes the view and its folder. */
  release(): void
}

/** Why the rows cannot be copied, or null: the chain table's values and their claimed size. */
function refuseCopy(db: Database.Database, copyBytes: number): string | null {
  const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').all('chain') as { name: string }[]).map(
    (c) => `coalesce(octet_length(${quoteIdent(c.name)}), 0)`,
  )
  if (cols.length === 0) return 'it has no chain table'
  // The sqlite_sequence rows are copied too (their name compared, the chain's seq written): their
  // values are stored in bytes of their own as well, so they count against the same file.
  const sequence =
    db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").pluck().get() === 1
  const claimed = db
    .prepare(
      `SELECT (SELECT coalesce(sum(${cols.join(' + ')}), 0) FROM chain NOT INDEXED)` +
        (sequence
          ? ' + (SELECT coalesce(sum(coalesce(octet_length(name), 0) + coalesce(octet_length(seq), 0)), 0) FROM sqlite_sequence NOT INDEXED)'
          : ''),
    )
    .pluck()
    .get() as number
  return claimed > copyBytes
    ? `its chain and sequence values claim ${claimed} bytes in a file of ${copyBytes}: overflow pages that come back on themselves`
    : null
}

/** A column as SQLite read the copy's table (PRAGMA table_xinfo). */
interface XCol {
  name: string
  type: string
  hidden: number
}

/**
 * The type name giving a declared type's affinity (sqlite.org datatype3 §3.1, its rules in order):
 * the view's values are the copy's, already converted, and converted the same way again.
 */
function affinityType(declared: string): string {
  const t = declared.toUpperCase()
  if (t.includes('INT')) return 'INTEGER'
  if (/CHAR|CLOB|TEXT/.test(t)) return 'TEXT'
  if (t.includes('BLOB') || t.trim() === '') return 'BLOB'
  // REAL affinity stores an integral real as an integer and turns it back on reading (datatype3
  // §3.1, vdbe.c OP_RealAffinity), which the direct reader declines: the view keeps the values the
  // copy's read gave, reals already, with no affinity to convert them again.
  if (/REAL|FLOA|DOUB/.test(t)) return 'BLOB'
  return 'NUMERIC'
}

/**
 * The chain table's CREATE TABLE for the view, made from the columns SQLite read in the copy — their
 * names, order and affinities, `seq` the rowid alias (with AUTOINCREMENT) where it is one there — never
 * from the evidence's own text: SQLite's open parses only that text's first statement (prepare.c
 * sqlite3InitCallback ignores the tail), and its NOT NULL, UNIQUE or CHECK constraints are the
 * evidence's too (a crafted one that the rows violate would refuse the copy, and with it the search).
 * The record layout is what the search needs (../recovery/layout.ts), and it is the same. The columns
 * and their list, the names quoted: the rows are copied by name.
 */
function chainTableDdl(
  src: Database.Database,
  autoincrement: boolean,
): { ddl: string; cols: string; seqStored: boolean } {
  const list = src
    .prepare("SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = 'chain' COLLATE NOCASE")
    .all() as { type: string; wr: number }[]
  // A WITHOUT ROWID table (wr = 1) is read too: its rows are copied into a rowid table whose rowid is
  // seq (its PRIMARY KEY keeps them distinct; a seq that is no integer refuses the copy).
  if (list.length !== 1 || list[0]!.type !== 'table')
    throw new Error('the chain table is not an ordinary table')
  const info = src.prepare('PRAGMA main.table_xinfo(chain)').all() as XCol[]
  if (info.length === 0 || info.some((c) => c.hidden !== 0))
    throw new Error('the chain table has hidden or generated columns')
  // Whether SQLite reads seq as the rowid (OP_Rowid, no OP_Column): the INTEGER PRIMARY KEY alias.
  const seq = info.find((c) => c.name.toLowerCase() === 'seq')
  const ops = seq
    ? (src.prepare(`EXPLAIN SELECT ${quoteIdent(seq.name)} FROM main.chain NOT INDEXED`).all() as {
        opcode: string
      }[])
    : []
  const alias = ops.some((o) => o.opcode === 'Rowid') && !ops.some((o) => o.opcode === 'Column')
  // seq is the view's rowid alias even where the copy stores it as a column (a table rebuilt without
  // the INTEGER PRIMARY KEY, which switched the search off): the live rows keep their seqs, and a
  // seq that is not a distinct integer refuses the copy (INSERT: datatype mismatch or UNIQUE), so
  // the search is then not run rather than run on seqs SQLite did not read.
  const defs = info.map((c) =>
    c === seq
      ? `${quoteIdent(c.name)} INTEGER PRIMARY KEY${autoincrement && alias ? ' AUTOINCREMENT' : ''}`
      : `${quoteIdent(c.name)} ${affinityType(c.type)}`,
  )
  return {
    ddl: `CREATE TABLE chain (${defs.join(', ')})`,
    cols: info.map((c) => quoteIdent(c.name)).join(', '),
    seqStored: seq !== undefined && !alias,
  }
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
    const seq = src.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").pluck().get()
    const { ddl, cols, seqStored } = chainTableDdl(src, seq === 1)
    src.close()
    src = null
    out = new Database(path)
    // The largest pages: page 1 then holds the schema's two rows whatever their length (at 512 bytes
    // a long CREATE TABLE left page 1 an interior page with no cell, which the direct reader declines).
    out.pragma('page_size = 65536')
    out.pragma('auto_vacuum = NONE')
    // Made before anything is attached, from the columns SQLite read: nothing of the evidence's
    // schema text runs here.
    // One statement each (prepare refuses a second): the names are quoted, and were the quoting ever
    // wrong, nothing after a statement would run.
    out.prepare(ddl).run()
    out.prepare('ATTACH ? AS src').run(copyPath)
    out.transaction(() => {
      // The table's own b-tree, never an index's: an index holding every column covers this query,
      // and the planner scans it instead when sqlite_stat1 (evidence too) calls it narrower
      // (where.c whereLoopAddBtree, szIdxRow from `sz=`) — its records are the crafter's to set
      // apart from the table's, which are what SQLite reads of the chain (every other read of the
      // copy is NOT INDEXED as well: ./source/copy-source.ts).
      out!.prepare(`INSERT INTO main.chain (${cols}) SELECT ${cols} FROM src.chain NOT INDEXED`).run()
      // A sequence is kept for a table SQLite keeps one for (AUTOINCREMENT on the rowid alias): one
      // left beside a rebuilt table no insert maintains any more, and proves nothing.
      if (seq === 1 && !seqStored) {
        out!.exec("DELETE FROM main.sqlite_sequence WHERE name = 'chain' COLLATE NOCASE")
        out!.exec(
          "INSERT INTO main.sqlite_sequence SELECT name, seq FROM src.sqlite_sequence NOT INDEXED WHERE name = 'chain' COLLATE NOCASE",
        )
      }
    })()
    out.exec('DETACH src')
    return { path, seqStored, release }
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
