// What one pass over a chain's rows may read through SQLite. Each row's values are stored in bytes
// of their own (file format §1.6: every overflow page belongs to one cell; a string's length in
// UTF-16 units is at most its UTF-8 bytes), so a pass over distinct rows reads at most the
// database's bytes — four times that is allowed, for a query naming a column twice. More means
// cells share overflow pages (integrity_check's "2nd reference to page"), which SQLite follows as
// given: a few megabytes of file would be read as gigabytes. Refused as corrupt, so the work stays
// bounded by the file.
import type Database from 'better-sqlite3'
import { AuditError } from '../../base/errors'
import { quoteIdent } from '../sqlite/ident'

export class ValueBudget {
  private bytes = 0

  constructor(private readonly dbBytes: number | null) {}

  /**
   * The bytes of the database `db` holds (its page count times its page size); null when the
   * connection cannot say now (a statement of its own still open): that pass goes unbounded.
   */
  static of(db: Database.Database): number | null {
    try {
      const n = (name: string): number => Number(db.pragma(name, { simple: true }) ?? 0)
      return n('page_count') * n('page_size')
    } catch {
      return null
    }
  }

  /**
   * One row's values read, and `walked` bytes SQLite stepped over to reach them (an overflowing
   * column before the ones asked for); throws once the pass has read more than the file can hold.
   */
  take(values: unknown[], walked = 0): void {
    if (this.dbBytes === null) return
    this.bytes += walked
    for (const v of values) if (typeof v === 'string' || v instanceof Uint8Array) this.bytes += v.length
    if (this.bytes > 4 * this.dbBytes + (1 << 20))
      throw new AuditError(
        'corrupt',
        `the chain's rows share overflow pages: one pass read ${this.bytes} bytes of values from a database of ${this.dbBytes} bytes (SQLite's integrity_check: "2nd reference to page"); not a file SQLite wrote`,
      )
  }
}

/** The SQL function a value read through `sized` calls when it is larger than the database. */
const OVERSIZED = 'bijotel_oversized'

/**
 * The database's bytes as SQL: a constant subquery, run once per statement (SQLite codes it behind
 * OP_Once), on the statement's own connection.
 */
const DB_BYTES = '(SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size())'

/**
 * `expr` (by default the column `column` itself) read only when `column`'s stored value is no
 * larger than the whole database. A value is stored in bytes of its own (file format §1.6: every
 * overflow page belongs to one cell), so a larger one is a cell whose overflow chain comes back on
 * itself, which SQLite follows as given: a 100 KB file read one value of 400 MB (seconds, and as
 * much memory) before any budget could count it. octet_length reads the size from the record
 * header alone (vdbe.c OP_Column, OPFLAG_BYTELENARG: overflow content is not read), so the value
 * is never loaded: the connection's `refuseOversizedValues` function refuses the row first.
 */
export function sized(column: string, expr = column): string {
  return `CASE WHEN octet_length(${column}) > ${DB_BYTES} THEN ${OVERSIZED}(octet_length(${column}), ${DB_BYTES}) ELSE ${expr} END`
}

/** On `db`, the function `sized` calls: it refuses the file as corrupt, naming the sizes. */
export function refuseOversizedValues(db: Database.Database): void {
  db.function(OVERSIZED, (size: unknown, dbBytes: unknown) => {
    throw new AuditError(
      'corrupt',
      `a value of the chain claims ${String(size)} bytes in a database of ${String(dbBytes)} bytes: its overflow pages come back on themselves (SQLite's integrity_check: "2nd reference to page"); not a file SQLite wrote`,
    )
  })
}

/** A column's name quoted as an SQL identifier (the schema is evidence: any name may be there). */
export const quoteId = quoteIdent

/**
 * SQL for the bytes SQLite steps over in each row to reach the last column of `selected`: the sizes
 * of the columns before it (a record holds its values in declaration order, file format §2.1) that
 * are not read themselves (a read value is charged as read). octet_length reads them from the
 * record header alone. A value under the database's size that overflows onto a chain coming back
 * on itself is walked page by page in every row: 12,000 such rows of a 16 MB file walked for 11 s
 * of verify (quadratic in the file), where charging the walk refuses it within a few passes' worth
 * of the file. '0' when nothing is stepped over.
 */
export function walkedPast(names: readonly string[], selected: readonly string[]): string {
  const last = Math.max(-1, ...selected.map((c) => names.indexOf(c)))
  const past = names.slice(0, Math.max(last, 0)).filter((c) => !selected.includes(c))
  return past.length === 0 ? '0' : past.map((c) => `coalesce(octet_length(${quoteId(c)}), 0)`).join(' + ')
}

/**
 * SQL adding 0 that asks the type of the table's last column: SQLite checks that a record's fields
 * fill its payload exactly only once it has parsed the whole header (vdbe.c OP_Column: "corrupt
 * database" when the last field ends before or after the payload), so a row read for its first
 * columns alone reads cleanly where a full read of it (`SELECT *`) is malformed. typeof parses the
 * header to its end without reading the value (OPFLAG_TYPEOFARG).
 */
export function wholeRecord(names: readonly string[]): string {
  const end = names.at(-1)
  return end === undefined ? '0' : `(typeof(${quoteId(end)}) = '')`
}

/** The last value of every copy-path row: the bytes walked past (a number), the whole record parsed. */
export function rowTail(names: readonly string[], selected: readonly string[]): string {
  return `${walkedPast(names, selected)} + ${wholeRecord(names)}`
}
