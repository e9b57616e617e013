// A table of the private copy as SQLite resolves its name in a query: the object `FROM name` names
// (a table or a view: indexes share their namespace, triggers have their own, build.c
// sqlite3LocateTable), matched as SQLite matches names (NOCASE folds ASCII only, ../sqlite/ident.ts),
// and its columns as SQLite reads them (PRAGMA table_xinfo).
import type Database from 'better-sqlite3'
import { identKey } from '../sqlite/ident'

export interface StoredTable {
  /** 'table' or 'view' (a virtual table is a 'table' of sqlite_master too). */
  type: string
  sql: string | null
  /** The stored columns in declaration order, named as SQLite matches them (`Span_Kind` is span_kind). */
  columns: string[]
  /**
   * Generated columns (table_xinfo hidden 2 and 3): SQLite computes their values from an expression
   * in the schema rather than reading them (lang_createtable.html#generated_columns), and
   * table_info leaves them out. A virtual table's hidden columns (1, FTS5's rank) are neither.
   */
  generated: string[]
}

/** The table or view `FROM name` reads on `db`, or null when there is none. */
export function storedTable(db: Database.Database, name: string): StoredTable | null {
  const row = db
    .prepare(
      "SELECT type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
    )
    .get(name) as { type: string; sql: string | null } | undefined
  if (row === undefined) return null
  if (row.type !== 'table') return { ...row, columns: [], generated: [] }
  const info = db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(name) as {
    name: string
    hidden: number
  }[]
  return {
    ...row,
    columns: info.filter((c) => c.hidden === 0).map((c) => identKey(c.name)),
    generated: info.filter((c) => c.hidden === 2 || c.hidden === 3).map((c) => c.name),
  }
}
