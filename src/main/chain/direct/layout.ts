// The column layout of a chain table, from its stored CREATE TABLE. SQLite itself decides it, by
// replaying the statement in a throwaway in-memory database. The reference schema's statement,
// which every BIJOTEL writer stores byte for byte, has its answer precomputed: a CLI run then
// never loads the SQLite driver (≈15 ms of a fresh process). layout.test.ts holds that answer to
// SQLite's.
import { loadSqliteDriver } from '../../sqlite-driver'
import { STORED_SCHEMA } from '../../writer/schema'
import { CHAIN_COLUMNS } from '../table'
import { Unsupported } from './format'

export interface ColumnLayout {
  /** Column names in record order. */
  names: string[]
  /** `seq` is the INTEGER PRIMARY KEY, an alias of the rowid (so it is not stored in the record). */
  seqIsRowid: boolean
}

/** Stored statement → its layout, as SQLite gives it (checked by layout.test.ts). */
export const KNOWN_LAYOUTS: ReadonlyMap<string, ColumnLayout> = new Map([
  [STORED_SCHEMA['chain']!, { names: [...CHAIN_COLUMNS], seqIsRowid: true }],
])

type SqliteDriver = typeof import('better-sqlite3')
let driver: SqliteDriver | null = null

/** better-sqlite3, loaded on first use only (a one-line error where it is not installed). */
function sqlite(): SqliteDriver {
  driver ??= loadSqliteDriver()
  return driver
}

export function columnLayout(sql: string): ColumnLayout {
  const known = KNOWN_LAYOUTS.get(sql)
  return known ? { names: [...known.names], seqIsRowid: known.seqIsRowid } : replayedLayout(sql)
}

/** Column layout of the stored CREATE TABLE, from SQLite, in a throwaway in-memory database. */
export function replayedLayout(sql: string): ColumnLayout {
  // Only a plain CREATE TABLE is replayed: no SELECT (CREATE TABLE AS cannot appear here, but the
  // text is evidence and is not trusted), one statement only (prepare refuses more).
  if (!/^\s*CREATE\s+TABLE\b/i.test(sql) || /\bSELECT\b/i.test(sql) || /\bWITHOUT\s+ROWID\b/i.test(sql))
    throw new Unsupported('unusual CREATE TABLE')
  const Database = sqlite()
  const mem = new Database(':memory:')
  try {
    mem.prepare(sql).run()
    const info = mem.prepare('PRAGMA table_xinfo(chain)').all() as {
      name: string
      type: string
      pk: number
      hidden: number
      dflt_value: unknown
    }[]
    if (info.length === 0 || info.some((c) => c.hidden !== 0))
      throw new Unsupported('hidden or generated columns')
    const pk = info.filter((c) => c.pk > 0)
    const seqIsRowid =
      pk.length === 1 &&
      pk[0]!.name === 'seq' &&
      pk[0]!.type.toUpperCase() === 'INTEGER' &&
      !/PRIMARY\s+KEY\s+DESC/i.test(sql)
    // A column added later with a DEFAULT would read as that default in old rows: not handled here.
    if (info.some((c) => c.dflt_value !== null)) throw new Unsupported('column defaults')
    return { names: info.map((c) => c.name), seqIsRowid }
  } catch (e) {
    if (e instanceof Unsupported) throw e
    throw new Unsupported(`schema not replayable: ${(e as Error).message}`)
  } finally {
    mem.close()
  }
}
