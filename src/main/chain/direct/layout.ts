// The chain table as SQLite interprets the schema: which sqlite_master row defines it (its root
// page), its columns in record order, whether `seq` is the rowid alias, and where a short record
// would read a column's DEFAULT. SQLite decides all of it: every schema row's statement is replayed,
// in rowid order as `sqlite3InitOne` (prepare.c) parses them, in a throwaway in-memory database, and
// that database is asked (PRAGMA table_xinfo, pragma_table_list, EXPLAIN) rather than the text
// matched by pattern. A schema of exactly the reference's objects (every BIJOTEL writer stores them
// byte for byte) has its answer precomputed, so a CLI run on such a chain never loads the SQLite
// driver, and a build without it still reads those chains directly; layout.test.ts holds that answer
// to SQLite's. Anything else without the driver, or anything SQLite would refuse, is declined.
import { loadSqliteDriver } from '../../base/sqlite-driver'
import { STORED_SCHEMA } from '../schema'
import { CHAIN_COLUMNS } from '../table'
import { Unsupported } from '../sqlite/decline'
import { identKey, sameIdent as same } from '../sqlite/ident'
import { checkInitParse } from './schema-init'

export interface ColumnLayout {
  /** Column names in record order. */
  names: string[]
  /** `seq` is the INTEGER PRIMARY KEY, an alias of the rowid (so it is not stored in the record). */
  seqIsRowid: boolean
  /**
   * A record with fewer fields than this is declined: a column past its end would read as its
   * DEFAULT (vdbe.c OP_Column), not NULL. 0 when no column has a DEFAULT.
   */
  minFields: number
}

/** One sqlite_master row as stored. */
export interface MasterRow {
  type: unknown
  name: unknown
  tblName: unknown
  /** The rootpage column when it is stored as an integer; null for any other value. */
  rootpage: number | null
  sql: unknown
}

export interface ChainTable {
  /** Root page of the chain table's b-tree. */
  root: number
  layout: ColumnLayout
}

/** Stored statement → its layout, as SQLite gives it (checked by layout.test.ts). */
export const KNOWN_LAYOUTS: ReadonlyMap<string, ColumnLayout> = new Map([
  [STORED_SCHEMA['chain']!, { names: [...CHAIN_COLUMNS], seqIsRowid: true, minFields: 0 }],
])

/** The reference's schema rows (type, name, tbl_name, sql), each allowed once; the table first. */
const KNOWN_OBJECTS: readonly (readonly [string, string, string, string])[] = [
  ['table', 'chain', 'chain', STORED_SCHEMA['chain']!],
  ['table', 'sqlite_sequence', 'sqlite_sequence', STORED_SCHEMA['sqlite_sequence']!],
  ['index', 'idx_chain_trace', 'chain', STORED_SCHEMA['idx_chain_trace']!],
  ['index', 'idx_chain_semhash', 'chain', STORED_SCHEMA['idx_chain_semhash']!],
]

type SqliteDriver = typeof import('better-sqlite3')
let driver: SqliteDriver | null | undefined

/** better-sqlite3, loaded on first use only; null where it cannot be loaded. */
function sqlite(): SqliteDriver | null {
  if (driver === undefined) {
    try {
      driver = loadSqliteDriver()
    } catch {
      driver = null
    }
  }
  return driver
}

/**
 * Root pages as `sqlite3InitCallback` (prepare.c) accepts them with its extra schema checks, which
 * are on by default: an integer naming a page of the file. A table's root is never page 1
 * (sqlite_master's) nor 0 (which SQLite reads as an empty table): both are declined, as are two
 * objects sharing a root.
 */
function checkRoots(rows: MasterRow[], nPage: number): void {
  const roots = new Set<number>()
  for (const r of rows) {
    const p = r.rootpage
    if (p === null || !Number.isInteger(p) || p < 2 || p > nPage || roots.has(p))
      throw new Unsupported('a schema row with an unusual root page')
    roots.add(p)
  }
}

/** The chain table of a schema made only of the reference's objects, or null for any other. */
function knownChainTable(rows: MasterRow[], nPage: number): ChainTable | null {
  const seen = new Set<number>()
  let table = -1
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    const k = KNOWN_OBJECTS.findIndex(
      ([type, name, tbl, sql]) => r.type === type && r.name === name && r.tblName === tbl && r.sql === sql,
    )
    if (k < 0 || seen.has(k)) return null
    // An index parsed before its table would fail ("no such table"): malformed to SQLite.
    if (KNOWN_OBJECTS[k]![0] === 'index' && table < 0) return null
    if (k === 0) table = i
    seen.add(k)
  }
  if (table < 0) return null
  checkRoots(rows, nPage)
  const layout = KNOWN_LAYOUTS.get(STORED_SCHEMA['chain']!)!
  return { root: rows[table]!.rootpage!, layout: { ...layout, names: [...layout.names] } }
}

/**
 * The chain table of the schema in `rows` (sqlite_master in rowid order) as SQLite interprets it,
 * in a file of `nPage` pages. Throws Unsupported for anything SQLite might read differently or
 * refuse, and for any schema other than the reference's when the SQLite driver is not there.
 */
export function chainTable(rows: MasterRow[], nPage: number): ChainTable {
  const known = knownChainTable(rows, nPage)
  if (known) return known
  const Database = sqlite()
  if (Database === null) throw new Unsupported('schema other than the reference one, and no SQLite driver')
  checkRoots(rows, nPage)
  checkInitParse(Database, rows)
  const mem = new Database(':memory:')
  try {
    return replayedChainTable(mem, rows, nPage)
  } catch (e) {
    if (e instanceof Unsupported) throw e
    throw new Unsupported(`schema not replayable: ${(e as Error).message}`)
  } finally {
    mem.close()
  }
}

type Mem = import('better-sqlite3').Database

/** The object a statement just made, as the in-memory database lists it. */
interface Made {
  type: string
  name: string
  tbl_name: string
}

function replayedChainTable(mem: Mem, rows: MasterRow[], nPage: number): ChainTable {
  checkRoots(rows, nPage)
  const made = mem.prepare(
    'SELECT type, name, tbl_name FROM main.sqlite_master WHERE name = ? COLLATE NOCASE',
  )
  let root = -1
  for (const r of rows) {
    const sql = r.sql
    if (typeof sql !== 'string' || sql.length === 0) {
      // An automatic index (sql NULL) must name an index its table's statement made.
      const m = typeof r.name === 'string' ? (made.get(r.name) as Made | undefined) : undefined
      if (sql !== null || m?.type !== 'index' || !same(r.type, 'index'))
        throw new Unsupported('odd schema row')
      continue
    }
    // Replaying runs the statement: a CREATE TABLE … AS SELECT (never stored by SQLite, which
    // keeps the column list instead) or any VALUES would compute rows. Such text is declined.
    if (/\b(SELECT|VALUES)\b/i.test(sql)) throw new Unsupported('a schema statement with a query')
    if (same(r.name, 'sqlite_sequence') && sql === STORED_SCHEMA['sqlite_sequence']) continue
    const before = mem.prepare('SELECT count(*) FROM main.sqlite_master').pluck().get() as number
    mem.prepare(sql).run()
    const after = mem.prepare('SELECT count(*) FROM main.sqlite_master').pluck().get() as number
    // sqlite3CheckObjectName: type, name and tbl_name must be those of what the statement made.
    const m = typeof r.name === 'string' ? (made.get(r.name) as Made | undefined) : undefined
    if (
      after <= before ||
      !m ||
      !same(r.type, m.type) ||
      !same(r.name, m.name) ||
      !same(r.tblName, m.tbl_name)
    )
      throw new Unsupported('a schema row unlike its statement')
    if (m.type !== 'table' && m.type !== 'index') throw new Unsupported(`a ${m.type} in the schema`)
    if (m.type === 'table' && same(m.name, 'chain')) root = r.rootpage!
  }
  if ((mem.prepare('SELECT count(*) FROM temp.sqlite_master').pluck().get() as number) > 0)
    throw new Unsupported('a temporary object in the schema')
  if (root < 0) throw new Unsupported('no chain table')
  return { root, layout: tableLayout(mem) }
}

interface XInfo {
  name: string
  hidden: number
  dflt_value: unknown
}

interface Op {
  opcode: string
  p1: number
  p2: number
  p3: number
}

/** The layout of main.chain in `mem`, from SQLite's own answers. */
function tableLayout(mem: Mem): ColumnLayout {
  const list = mem
    .prepare("SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = 'chain' COLLATE NOCASE")
    .all() as { type: string; wr: number }[]
  if (list.length !== 1 || list[0]!.type !== 'table') throw new Unsupported('chain is not an ordinary table')
  if (list[0]!.wr !== 0) throw new Unsupported('a WITHOUT ROWID table')
  const info = mem.prepare('PRAGMA main.table_xinfo(chain)').all() as XInfo[]
  if (info.length === 0 || info.some((c) => c.hidden !== 0))
    throw new Unsupported('hidden or generated columns')
  let seqIsRowid = false
  let minFields = 0
  info.forEach((c, i) => {
    // How SQLite reads the column in a full scan: OP_Rowid for the rowid alias, else OP_Column of
    // record field i; OP_RealAffinity after it would turn a stored integer into a REAL.
    const quoted = `"${c.name.replace(/"/g, '""')}"`
    const ops = mem.prepare(`EXPLAIN SELECT ${quoted} FROM main.chain NOT INDEXED`).all() as Op[]
    const columns = ops.filter((o) => o.opcode === 'Column')
    const rowids = ops.filter((o) => o.opcode === 'Rowid')
    if (ops.some((o) => o.opcode === 'RealAffinity')) throw new Unsupported(`column ${c.name} reads as REAL`)
    if (rowids.length === 1 && columns.length === 0) {
      if (identKey(c.name) === 'seq') seqIsRowid = true
    } else if (columns.length !== 1 || rowids.length !== 0 || columns[0]!.p2 !== i) {
      throw new Unsupported(`column ${c.name} is not read as record field ${i}`)
    }
    if (c.dflt_value !== null) minFields = i + 1
  })
  // Names as SQLite matches them (../sqlite/ident.ts): a column declared `Span_Kind` is span_kind.
  return { names: info.map((c) => identKey(c.name)), seqIsRowid, minFields }
}

/** The layout SQLite gives the table a single CREATE TABLE statement makes (tests and tools). */
export function replayedLayout(sql: string): ColumnLayout {
  return chainTable([{ type: 'table', name: 'chain', tblName: 'chain', rootpage: 2, sql }], 2).layout
}

/** The layout of a stored CREATE TABLE: precomputed for the reference's, else from SQLite. */
export function columnLayout(sql: string): ColumnLayout {
  const known = KNOWN_LAYOUTS.get(sql)
  return known ? { ...known, names: [...known.names] } : replayedLayout(sql)
}
