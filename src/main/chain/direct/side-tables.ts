// Other tables of a chain.db (reference §1.2: `cas`, `policy_daily_state`), read by the direct
// reader in place: their entry in sqlite_master (the schema table, rooted at page 1), their column
// layout (the stored CREATE TABLE, replayed by SQLite in a throwaway in-memory database), and their
// rows, leaf by leaf (SQLite file format §1.6 b-tree pages, §2.1 record format). Only ordinary rowid
// tables are read; anything else is `Unsupported` and the caller uses SQLite on a verified copy.
import { STORED_SCHEMA } from '../schema'
import { loadSqliteDriver } from '../../base/sqlite-driver'
import { CellReader } from '../sqlite/cell'
import { Unsupported } from '../sqlite/decline'
import { identKey, quoteIdent as quoteId, sameIdent } from '../sqlite/ident'
import { headerOffset, PAGE_LEAF_TABLE } from '../sqlite/page'
import { collectLeaves } from './btree'
import type { DirectChain } from './open'
import { Pager } from './pager'

interface MasterEntry {
  type: unknown
  name: unknown
  rootpage: unknown
  sql: unknown
}

function scanTree(
  pager: Pager,
  root: number,
  ncols: number,
  reserved: number,
  row: (c: CellReader) => void,
): void {
  const leaves = collectLeaves(pager, root)
  const cell = new CellReader(pager, ncols, reserved)
  for (const n of leaves.pages) {
    const page = pager.pageCopy(n)
    const h = headerOffset(n)
    if (page[h] !== PAGE_LEAF_TABLE) throw new Unsupported('table leaf is not a leaf')
    const count = page.readUInt16BE(h + 3)
    for (let i = 0; i < count; i++) {
      cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
      row(cell)
    }
  }
}

function master(pager: Pager, reserved: number): MasterEntry[] {
  const out: MasterEntry[] = []
  scanTree(pager, 1, 5, reserved, (c) =>
    out.push({ type: c.value(0), name: c.value(1), rootpage: c.value(3), sql: c.value(4) }),
  )
  return out
}

/** Column names in record order, and the INTEGER PRIMARY KEY column that aliases the rowid, if any. */
function tableLayout(sql: string, name: string): { names: string[]; rowidAlias: number } {
  // SQLite's own AUTOINCREMENT table cannot be created by name in a scratch database; its schema is
  // fixed (file-format §2.6): two columns, no rowid alias.
  if (sameIdent(name, 'sqlite_sequence') && sql === STORED_SCHEMA['sqlite_sequence'])
    return { names: ['name', 'seq'], rowidAlias: -1 }
  if (!/^\s*CREATE\s+TABLE\b/i.test(sql) || /\bSELECT\b/i.test(sql) || /\bWITHOUT\s+ROWID\b/i.test(sql))
    throw new Unsupported('unusual CREATE TABLE')
  const Database = loadSqliteDriver()
  const mem = new Database(':memory:')
  try {
    mem.prepare(sql).run()
    const info = mem
      .prepare('SELECT name, type, pk, hidden, dflt_value FROM pragma_table_xinfo(?)')
      .all(name) as {
      name: string
      type: string
      pk: number
      hidden: number
      dflt_value: unknown
    }[]
    if (info.length === 0 || info.some((c) => c.hidden !== 0 || c.dflt_value !== null))
      throw new Unsupported('hidden, generated or defaulted columns')
    // The rowid alias as SQLite reads it in a scan (OP_Rowid, not OP_Column), not by the text:
    // `PRIMARY/**/KEY DESC` is a stored column (lang_createtable.html#rowid).
    const pk = info.filter((c) => c.pk > 0)
    const ops =
      pk.length === 1
        ? (mem.prepare(`EXPLAIN SELECT ${quoteId(pk[0]!.name)} FROM ${quoteId(name)}`).all() as {
            opcode: string
          }[])
        : []
    const alias =
      ops.some((o) => o.opcode === 'Rowid') && !ops.some((o) => o.opcode === 'Column')
        ? info.indexOf(pk[0]!)
        : -1
    // Names as SQLite matches them (../sqlite/ident.ts).
    return { names: info.map((c) => identKey(c.name)), rowidAlias: alias }
  } catch (e) {
    if (e instanceof Unsupported) throw e
    throw new Unsupported(`schema not replayable: ${(e as Error).message}`)
  } finally {
    mem.close()
  }
}

/**
 * Calls `row` with the values of `columns` (null for a column the table lacks; integers as BigInt)
 * for every row of table `name`. Returns false when there is no such table.
 */
export function scanSideTable(
  chain: DirectChain,
  name: string,
  columns: readonly string[],
  row: (values: unknown[]) => void,
): boolean {
  const pager = new Pager(chain.spec)
  try {
    const entry = master(pager, chain.reserved).filter((m) => sameIdent(m.name, name))
    if (entry.length === 0) return false
    const m = entry[0]!
    if (entry.length > 1 || m.type !== 'table' || typeof m.rootpage !== 'number' || typeof m.sql !== 'string')
      throw new Unsupported(`${name} is not one stored table`)
    const layout = tableLayout(m.sql, String(m.name))
    const at = columns.map((c) => layout.names.indexOf(c))
    scanTree(pager, m.rootpage, layout.names.length, chain.reserved, (c) =>
      row(
        at.map((i) =>
          i < 0 ? null : i === layout.rowidAlias ? (c.rowidBig ?? BigInt(c.rowid)) : c.valueBig(i),
        ),
      ),
    )
    return true
  } finally {
    pager.close()
  }
}
