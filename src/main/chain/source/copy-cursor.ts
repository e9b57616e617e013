// A cursor over one statement of the copy (./copy-source.ts `cursor`), read a slice at a time by the
// streaming engines (./stream.ts), on a connection of its own that it closes.
import type Database from 'better-sqlite3'
import type { RowCursor } from './row-source'
import type { SqlRow } from './sql-row'

/** `sql` run on `db` (its own connection), its rows read through `row`; `empty`: no row to read. */
export function statementCursor(
  db: Database.Database,
  sql: string,
  params: unknown[],
  row: SqlRow,
  empty: boolean,
  guard: <T>(what: string, run: () => T) => T,
): RowCursor {
  const what = 'reading rows'
  let it: IterableIterator<unknown[]>
  try {
    it = guard(
      what,
      () =>
        db
          .prepare(sql)
          .raw(true)
          .safeIntegers(true)
          .iterate(...params) as IterableIterator<unknown[]>,
    )
  } catch (e) {
    db.close()
    throw e
  }
  let done = empty
  return {
    read: (use, pause) => {
      while (!done) {
        const next = guard(what, () => it.next())
        if (next.done) done = true
        else {
          row.set(next.value)
          if (use(row) === false) done = true
        }
        if (!done && pause()) return true
      }
      return false
    },
    close: () => {
      it.return?.()
      db.close()
    },
  }
}
