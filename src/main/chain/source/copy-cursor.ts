// A cursor over one statement of the copy (./copy-source.ts `cursor`), read a slice at a time by the
// streaming engines (./stream.ts), on a connection of its own that it closes. The whole statement is
// one pass of ./value-budget.ts: a stream over cells that share overflow chains is refused once it
// has read — or walked past, to reach a column after the body — more than the file can hold, as
// every other pass over the copy is.
import type Database from 'better-sqlite3'
import type { RowCursor } from './row-source'
import type { SqlRow } from './sql-row'
import { ValueBudget } from './value-budget'

/**
 * `sql` run on `db` (its own connection), its rows read through `row`; `empty`: no row to read.
 * `walked`: the statement's last value is the size of the bytes SQLite walks past in each row.
 */
export function statementCursor(
  db: Database.Database,
  sql: string,
  params: unknown[],
  row: SqlRow,
  empty: boolean,
  guard: <T>(what: string, run: () => T) => T,
  walked = false,
): RowCursor {
  const what = 'reading rows'
  let it: IterableIterator<unknown[]>
  let budget: ValueBudget
  try {
    // Sized before the statement opens: the connection answers no pragma while it runs.
    budget = new ValueBudget(ValueBudget.of(db))
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
          budget.take(next.value, walked ? Number(next.value[next.value.length - 1] ?? 0) : 0)
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
