// Opening a chain.db copy with better-sqlite3 and explaining, in one line, anything that is not a
// BIJOTEL chain. Integers are read as BigInt (`safeIntegers`): `timestamp_ns` is ≈1.7×10^18 and
// would be rounded as a JS number.
import Database from 'better-sqlite3'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { AuditError, asChainReadError } from '../base/errors'
import { takeSnapshot, type Snapshot, type SnapshotOptions } from './snapshot'
import { headerPageSize, SQLITE_MAGIC } from './sqlite/header'
import { refuseOversizedValues, ValueBudget, walkedPast } from './source/value-budget'
import { REQUIRED_COLUMNS } from './table'
import { storedTable } from './source/stored-table'
import { schemaOversize } from './direct/schema-sizes'

export interface HeaderInfo {
  pageSize: number
  pageCount: number
  walMode: boolean
}

/**
 * Check the 100-byte SQLite header, and the sizes the schema's rows claim, before SQLite sees the
 * file, so the error can say what is wrong.
 */
export function inspectHeader(path: string, displayPath: string): HeaderInfo {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    if (size === 0) throw new AuditError('empty_file', `not a chain: ${displayPath} is empty (0 bytes)`)
    const header = Buffer.alloc(100)
    const n = readSync(fd, header, 0, 100, 0)
    if (n < 16 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) {
      throw new AuditError('not_sqlite', `not a SQLite database: ${displayPath} (no SQLite header)`)
    }
    if (n < 100)
      throw new AuditError(
        'truncated',
        `database file truncated: ${displayPath} is ${size} bytes, shorter than its header`,
      )
    const rawPageSize = header.readUInt16BE(16)
    const pageSize = headerPageSize(header)
    if (pageSize === 0) {
      throw new AuditError(
        'corrupt',
        `database file corrupt: ${displayPath} has an invalid page size (${rawPageSize})`,
      )
    }
    const pageCount = header.readUInt32BE(28)
    const changeCounter = header.readUInt32BE(24)
    const validFor = header.readUInt32BE(92)
    // The in-header size is only meaningful when "version-valid-for" matches the change counter.
    if (pageCount > 0 && validFor === changeCounter && pageCount * pageSize > size) {
      throw new AuditError(
        'truncated',
        `database file truncated or corrupt: ${displayPath} has ${size} bytes but its header says ${pageCount} pages of ${pageSize} bytes (${pageCount * pageSize})`,
      )
    }
    if (size % pageSize !== 0) {
      throw new AuditError(
        'truncated',
        `database file truncated or corrupt: ${displayPath} is ${size} bytes, not a whole number of ${pageSize}-byte pages`,
      )
    }
    // Before SQLite loads the schema, which it reads whole whatever it claims (direct/schema-sizes.ts).
    const over = schemaOversize(fd, size, path)
    if (over !== null)
      throw new AuditError(
        'corrupt',
        `the schema of ${displayPath} claims ${over.claimed} bytes in a database of ${over.fileBytes} bytes: its overflow pages come back on themselves (SQLite's integrity_check: "2nd reference to page"); not a file SQLite wrote`,
      )
    return { pageSize, pageCount, walMode: header[18] === 2 || header[19] === 2 }
  } finally {
    closeSync(fd)
  }
}

/**
 * Every writer makes `seq` an INTEGER PRIMARY KEY (the rowid), so it is always an integer. A table
 * rebuilt by hand can hold NULL, REAL, TEXT or BLOB seqs: seq-range queries silently skip those rows
 * (or trip BigInt arithmetic), so a verdict would miss them. Refuse such a table; the scan is only
 * needed when seq is not the rowid. Whether it is, SQLite says, not the schema text: a scan reads
 * the rowid alias with OP_Rowid, any other column with OP_Column: `INTEGER PRIMARY KEY DESC`, a
 * WITHOUT ROWID spelled with a comment inside, or a type spelled otherwise than INTEGER is a stored
 * column that may hold anything (lang_createtable.html#rowid).
 */
function assertIntegerSeqs(db: Database.Database, displayPath: string): void {
  const ops = db.prepare('EXPLAIN SELECT seq FROM chain NOT INDEXED').all() as { opcode: string }[]
  const rowidAlias = ops.some((o) => o.opcode === 'Rowid') && !ops.some((o) => o.opcode === 'Column')
  if (rowidAlias) return
  // typeof reads the serial type from the record header alone (vdbe.c OP_Column, OPFLAG_TYPEOFARG).
  // NOT INDEXED: an index on seq covers this query, and its records (evidence, set apart from the
  // table's by a crafter) would answer for the table's.
  const bad = db
    .prepare("SELECT COUNT(*) FROM chain NOT INDEXED WHERE typeof(seq) <> 'integer'")
    .pluck()
    .get() as number
  if (bad > 0) {
    throw new AuditError(
      'corrupt',
      `not a BIJOTEL chain: ${bad} row(s) of the chain table in ${displayPath} have a seq that is not an integer (NULL, REAL, TEXT or BLOB); the table was rebuilt without its INTEGER PRIMARY KEY`,
    )
  }
}

/**
 * The columns the copy path's queries filter or order on — a stored seq (a sort, a range) and
 * timestamp_ns (`verify --since/--until`) — are read from every row the query visits, past the
 * values stored before them (file format §2.1), in rows no pass returns and so no ValueBudget
 * counts: over overflow chains that come back on themselves, `list --limit 3` on a table whose seq
 * was stored last walked 1 GB of pages of a 3 MB file for 20 s. Those bytes, read from the record
 * headers (octet_length), are charged once here, so what one such query walks is bounded by the
 * file. Nothing to charge in the writers' layout (seq the rowid, timestamp_ns the first column).
 */
function chargeFilterWalks(db: Database.Database, columns: readonly string[]): void {
  const past = walkedPast(columns, ['seq', 'timestamp_ns'])
  if (past === '0') return
  const walked = db.prepare(`SELECT sum(${past}) FROM chain NOT INDEXED`).pluck().get() as number | null
  new ValueBudget(ValueBudget.of(db)).take([], Number(walked ?? 0))
}

/**
 * Bytes of the copy SQLite may memory-map (BIJOTEL_MMAP_MB; default 0: off). A map reads faster
 * than read() into SQLite's cache, but its pages count in the process's RSS however large the file.
 */
export function mmapBytes(): number {
  return mmapMb(0)
}

/**
 * Bytes a pass's own connection maps (`openCopy(…, { pass: true })`: a worker thread's, or the one
 * a count opens): as much as SQLite maps (SQLITE_MAX_MMAP_SIZE, 2 GB), unless BIJOTEL_MMAP_MB says.
 * A page of the map costs no read() call and no copy into SQLite's cache (a pass over the 451 MB
 * chain of 200k rows: ≈0.4–0.9 s less CPU on one thread); its pages count in the RSS while the
 * connection is open, but they are the private copy's own pages (tmpfs or the page cache), not new
 * memory, and the map goes with the connection at the end of the pass. The copy is ours alone:
 * nothing truncates it under the map (a map of the evidence itself would risk SIGBUS).
 */
export function passMmapBytes(): number {
  return mmapMb(2047)
}

function mmapMb(fallback: number): number {
  const mb = Number(process.env['BIJOTEL_MMAP_MB'] ?? fallback)
  return Number.isFinite(mb) && mb >= 0 ? Math.min(Math.floor(mb), 2047) * 1024 * 1024 : 0
}

/**
 * Let SQLite apply the side files copied beside a private copy, as the writer's next connection
 * would: a read-write connection rolls a hot journal back when it first reads (pager.c
 * sqlite3PagerSharedLock: a read-only one refuses with SQLITE_READONLY_ROLLBACK) and recovers the
 * WAL (wal.c walIndexRecover); closing it checkpoints the WAL into the copy. Only ever the copy.
 */
export function recoverCopy(copyPath: string, displayPath: string): void {
  let db: Database.Database | null = null
  try {
    db = new Database(copyPath, { fileMustExist: true })
    db.pragma('schema_version')
  } catch (e) {
    // The header's own words first (not SQLite, truncated…), else SQLite's.
    inspectHeader(copyPath, displayPath)
    throw asChainReadError(e, `opening ${displayPath}`)
  } finally {
    db?.close()
  }
}

/** Open an already-made private copy (also used by worker threads). Never the original evidence. */
export function openCopy(
  copyPath: string,
  displayPath: string,
  /** The columns the caller reads (table.ts): a table without one of them is refused. */
  required: readonly string[] = REQUIRED_COLUMNS,
  /** A pass's own connection, closed with the pass: it maps the copy (`passMmapBytes`). */
  pass = false,
): { db: Database.Database; columns: Set<string> } {
  inspectHeader(copyPath, displayPath)
  let db: Database.Database
  try {
    db = new Database(copyPath, { readonly: true, fileMustExist: true })
    // When enabled, a memory map reads faster than read() into SQLite's page cache; safe on our
    // private, read-only copy.
    db.pragma(`mmap_size = ${pass ? passMmapBytes() : mmapBytes()}`)
    refuseOversizedValues(db)
  } catch (e) {
    throw asChainReadError(e, `opening ${displayPath}`)
  }
  try {
    const table = storedTable(db, 'chain')
    if (!table) {
      throw new AuditError('no_chain_table', `not a BIJOTEL chain: ${displayPath} has no \`chain\` table`)
    }
    if (table.type === 'view') {
      // A view's rows are computed, not stored: they are not the evidence, and a (recursive) view can
      // be written never to finish or to allocate without bound. No BIJOTEL writer creates one.
      throw new AuditError(
        'no_chain_table',
        `not a BIJOTEL chain: \`chain\` in ${displayPath} is a view (computed rows), not a stored table`,
      )
    }
    // Computed from an expression in the schema, not read (./source/stored-table.ts): a
    // `span_kind` computed to anything read as absent through table_info. No writer makes one.
    if (table.generated.length > 0)
      throw new AuditError(
        'missing_columns',
        `not a BIJOTEL chain: the chain table in ${displayPath} has computed (generated) columns, whose values SQLite computes rather than reads: ${table.generated.join(', ')}`,
      )
    const cols = new Set(table.columns)
    const missing = required.filter((c) => !cols.has(c))
    if (missing.length > 0) {
      throw new AuditError(
        'missing_columns',
        `not a BIJOTEL chain: the chain table in ${displayPath} lacks required columns: ${missing.join(', ')}`,
      )
    }
    assertIntegerSeqs(db, displayPath)
    chargeFilterWalks(db, [...cols])
    return { db, columns: cols }
  } catch (e) {
    db.close()
    throw asChainReadError(e, `reading the schema of ${displayPath}`)
  }
}

/** An opened chain: the evidence snapshot plus a read-only connection on its private copy. */
export class ChainFile {
  readonly db: Database.Database
  readonly columns: Set<string>
  readonly snapshot: Snapshot
  readonly displayPath: string
  private closed = false

  private constructor(snapshot: Snapshot, displayPath: string, required: readonly string[]) {
    this.snapshot = snapshot
    this.displayPath = displayPath
    if (snapshot.recover) recoverCopy(snapshot.dbPath, displayPath)
    const { db, columns } = openCopy(snapshot.dbPath, displayPath, required)
    this.db = db
    this.columns = columns
  }

  /** `opts.required`: the columns the caller reads (default: all a verification needs). */
  static async open(
    path: string,
    opts: SnapshotOptions & { required?: readonly string[] } = {},
  ): Promise<ChainFile> {
    const { required = REQUIRED_COLUMNS, ...snapshotOpts } = opts
    const snapshot = await takeSnapshot(path, { ...snapshotOpts, sqliteOnly: true })
    try {
      return new ChainFile(snapshot, path, required)
    } catch (e) {
      snapshot.dispose()
      throw e
    }
  }

  has(column: string): boolean {
    return this.columns.has(column)
  }

  /** `column` when it exists, else `NULL AS column`, so old or minimal schemas still read. */
  col(column: string): string {
    return this.columns.has(column) ? column : `NULL AS ${column}`
  }

  journalMode(): string {
    try {
      return String(this.db.pragma('journal_mode', { simple: true }))
    } catch {
      return 'unknown'
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.db.close()
    } finally {
      this.snapshot.dispose()
    }
  }
}
