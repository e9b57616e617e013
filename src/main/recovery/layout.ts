// What a record of the chain table looks like, from the table's own column list (sqlite_master, as
// the direct reader parsed it): which columns the record header must type how, and the byte
// pattern carving searches for. The reference layout's three hash columns are TEXT of 64 characters,
// serial type 13 + 2·64 = 141, the varint 0x81 0x0D (file-format §2.1): side by side in the header
// they give the six bytes 81 0D 81 0D 81 0D, found in no other record of a chain file.
import { TEXT64_TYPE } from '../chain/sqlite/record'
import { CHAIN_COLUMNS, REQUIRED_COLUMNS } from '../chain/table'

/** How a column's serial type is checked. */
/**
 * `rowid`: seq as the reference stores it, the INTEGER PRIMARY KEY, NULL in the record (file-format
 * §2.1); `seq`: a table whose seq is a column of its own (rebuilt without the alias) — its records
 * hold seq's integer, those written before the rebuild NULL, and both are the chain's.
 */
export type ColumnRole = 'rowid' | 'seq' | 'int' | 'hash' | 'body' | 'any'

export interface RecordLayout {
  ncols: number
  /** A record header may omit trailing columns added later by ALTER TABLE, never a required one. */
  minCols: number
  roles: ColumnRole[]
  ts: number
  body: number
  canonical: number
  prev: number
  hmac: number
  /** First column whose serial type is part of the anchor, and how many columns it spans. */
  anchorCol: number
  anchorCols: number
  /** The anchor's bytes: 0x81 0x0D per anchored column. */
  anchor: Buffer
}

/** Serial type of a 64-character TEXT value, as a varint. */
export const HASH_TYPE = TEXT64_TYPE
const HASH_TYPE_BYTES = [0x81, 0x0d]

/** The layout of the chain table with these columns (name → record position). */
export function recordLayout(
  columns: ReadonlyMap<string, number>,
  ncols: number,
  seqColumn: number,
  seqStored = false,
): RecordLayout {
  const at = (name: string): number => {
    const i = columns.get(name)
    if (i === undefined) throw new Error(`chain table without ${name}`)
    return i
  }
  const roles: ColumnRole[] = Array.from({ length: ncols }, () => 'any')
  roles[seqColumn] = seqStored ? 'seq' : 'rowid'
  const ts = at('timestamp_ns')
  const body = at('canonical_body')
  const canonical = at('canonical_hash')
  const prev = at('prev_hash')
  const hmac = at('hmac_hash')
  roles[ts] = 'int'
  roles[body] = 'body'
  roles[canonical] = roles[prev] = roles[hmac] = 'hash'
  const hashes = [canonical, prev, hmac].sort((a, b) => a - b)
  const together = hashes[2]! - hashes[0]! === 2
  const anchorCol = together ? hashes[0]! : hmac
  const anchorCols = together ? 3 : 1
  const minCols = Math.max(...REQUIRED_COLUMNS.map(at)) + 1
  const anchor = Buffer.from(Array.from({ length: anchorCols }, () => HASH_TYPE_BYTES).flat())
  return { ncols, minCols, roles, ts, body, canonical, prev, hmac, anchorCol, anchorCols, anchor }
}

/**
 * The layouts to match records in: the table's, then the reference's (§1.1, seq the rowid alias)
 * where the table's differs — a column dropped (ALTER TABLE DROP COLUMN rewrites every row, sqlite
 * alter.c) or the table rebuilt with its columns in another order leaves the rows written before it
 * in the reference's layout, in free pages and WAL frames, and they are the chain's rows all the same
 * (placed by their sealed links, like any record).
 */
export function recordLayouts(table: RecordLayout): RecordLayout[] {
  const reference = recordLayout(new Map(CHAIN_COLUMNS.map((c, i) => [c, i])), CHAIN_COLUMNS.length, 0)
  const same =
    table.ncols === reference.ncols &&
    table.roles.every((r, i) => r === reference.roles[i] || (r === 'seq' && reference.roles[i] === 'rowid'))
  return same ? [table] : [table, reference]
}
