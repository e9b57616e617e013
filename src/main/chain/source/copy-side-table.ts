// A side table of the private copy (reference §1.2: `cas`, `policy_daily_state`) as SQLite reads it:
// all its rows by a scan, every value sized and charged to one pass of the ValueBudget.
import type Database from 'better-sqlite3'
import { AuditError } from '../../base/errors'
import { storedTable } from './stored-table'
import { quoteId, rowTail, sized, ValueBudget } from './value-budget'

/** Every row of table `name` on `db`: the values of `columns` (null for one it lacks); false when there is none. */
export function scanCopyTable(
  db: Database.Database,
  displayPath: string,
  name: string,
  columns: readonly string[],
  row: (values: unknown[]) => void,
): boolean {
  const table = storedTable(db, name)
  if (table?.type !== 'table') return false
  if (table.generated.length > 0)
    throw new AuditError('corrupt', `table ${name} of ${displayPath} has computed (generated) columns`)
  const names = table.columns
  const read = columns.filter((c) => names.includes(c))
  const list = columns.map((c) => (names.includes(c) ? sized(quoteId(c)) : 'NULL')).join(', ')
  const budget = new ValueBudget(ValueBudget.of(db))
  // The table's own records, as the direct reader reads them (../direct/side-tables.ts): NOT INDEXED,
  // or an index holding the columns read could be scanned instead (its records the crafter's).
  const sql = `SELECT ${list}, ${rowTail(names, read)} FROM ${quoteId(name)} NOT INDEXED`
  for (const values of db.prepare(sql).raw(true).safeIntegers(true).iterate() as Iterable<unknown[]>) {
    budget.take(values, Number(values.pop()))
    row(values)
  }
  return true
}
