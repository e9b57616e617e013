// The entries table's listing: the rows a filter keeps, in the order of any column. Each order is a
// permutation of row positions (an Int32Array), computed once per (filter, sort) and cached by the
// session; a page is a slice of it. The order is SQLite's `ORDER BY <column>, seq` (missing values
// first, as SQLite puts NULL first: datatype3 §4.1; TEXT in UTF-8 byte order: BINARY collation),
// and the descending order is its exact reverse — so clicking a header twice reverses the listing.
import type { EntryFilter, EntrySort, EntrySortColumn } from '../../shared/chain-types'
import type { ChainIndex } from './chain-index'
import { nameRanks, type StringColumn, type TableColumns } from './columns/table-columns'
import { NO_MODEL } from './columns/types'
import { deltaNs } from './listing-delta'
import { selectPositions } from './views'
import { sortParts } from '../../shared/entry-sorts'

/** Columns whose order or filter needs the table columns' pass (../columns/table-columns.ts). */
const NEEDS_PASS: ReadonlySet<EntrySortColumn> = new Set([
  'span',
  'kind',
  'status',
  'hash',
  'input_tokens',
  'output_tokens',
  'cost',
  'latency',
])

/** Whether a listing needs the table columns (a sort or a filter on a column the index lacks). */
export function needsTableColumns(filter: EntryFilter | undefined, sort: EntrySort): boolean {
  return (
    NEEDS_PASS.has(sortParts(sort).column) || filter?.span_name !== undefined || filter?.status !== undefined
  )
}

/**
 * Whether a staged open's first pass (seq and timestamps only) serves a listing: no sort or filter
 * on provider, model, flags, a search or the table columns.
 */
export function servedByFirstPass(filter: EntryFilter | undefined, sort: EntrySort): boolean {
  const { column } = sortParts(sort)
  return (
    !needsTableColumns(filter, sort) &&
    column !== 'provider' &&
    column !== 'model' &&
    filter?.provider === undefined &&
    filter?.model === undefined &&
    !filter?.flagged_only &&
    filter?.search_id === undefined
  )
}

const EXACT = 2 ** 53

/**
 * Sorts `sel` (positions) by `key` (NaN: missing, first), equal keys by position; a tie between
 * doubles too large to be exact is settled by `exact`.
 */
function sortByKey(
  sel: Int32Array,
  key: (pos: number) => number,
  exact: ((pos: number) => bigint | null) | null,
): Int32Array {
  const n = sel.length
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) keys[i] = key(sel[i]!)
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  order.sort((a, b) => {
    const ka = keys[a]!
    const kb = keys[b]!
    const na = ka !== ka
    const nb = kb !== kb
    if (na || nb) return na && nb ? a - b : na ? -1 : 1
    if (ka !== kb) return ka < kb ? -1 : 1
    if (exact !== null && Math.abs(ka) >= EXACT) {
      const xa = exact(sel[a]!)!
      const xb = exact(sel[b]!)!
      if (xa !== xb) return xa < xb ? -1 : 1
    }
    return a - b
  })
  const out = new Int32Array(n)
  for (let i = 0; i < n; i++) out[i] = sel[order[i]!]!
  return out
}

/** A string column's key: its rank in UTF-8 byte order (NaN: no value). */
function stringKey(col: StringColumn): (pos: number) => number {
  const rank = nameRanks(col.names)
  return (pos) => rank[col.ids[pos]!]!
}

/**
 * The previous row of each position of `seqSel` (the listing in seq order), as a map from a
 * position to its predecessor's position (-1: none).
 */
function predecessors(seqSel: Int32Array, rows: number): Int32Array {
  const prev = new Int32Array(rows).fill(-1)
  for (let i = 1; i < seqSel.length; i++) prev[seqSel[i]!] = seqSel[i - 1]!
  return prev
}

function keyOf(
  column: EntrySortColumn,
  idx: ChainIndex,
  cols: TableColumns | null,
  seqSel: Int32Array,
): { key: (pos: number) => number; exact: ((pos: number) => bigint | null) | null } {
  const need = (): TableColumns => {
    if (cols === null) throw new Error(`sorting by ${column} needs the table columns`)
    return cols
  }
  switch (column) {
    case 'seq':
      return { key: (p) => idx.seq[p]!, exact: null }
    case 'time':
      return {
        key: (p) => (idx.tsValid[p] ? Number(idx.ts[p]!) : NaN),
        exact: (p) => idx.ts[p]!,
      }
    case 'provider': {
      const rank = nameRanks(idx.providerNames)
      return { key: (p) => rank[idx.provider[p]!]!, exact: null }
    }
    case 'model': {
      const rank = nameRanks(idx.modelNames.map((n, i) => (i === 0 && n === NO_MODEL ? null : n)))
      return { key: (p) => rank[idx.model[p]!]!, exact: null }
    }
    case 'delta': {
      const prev = predecessors(seqSel, idx.rows)
      return {
        key: (p) => {
          const d = deltaNs(idx, p, prev[p]!)
          return d === null ? NaN : Number(d)
        },
        exact: (p) => deltaNs(idx, p, prev[p]!),
      }
    }
    case 'span':
      return { key: stringKey(need().span), exact: null }
    case 'kind':
      return { key: stringKey(need().kind), exact: null }
    case 'status':
      return { key: stringKey(need().status), exact: null }
    case 'hash': {
      const r = need().hashRank
      return { key: (p) => r[p]!, exact: null }
    }
    case 'input_tokens': {
      const a = need().inputTokens
      return { key: (p) => a[p]!, exact: null }
    }
    case 'output_tokens': {
      const a = need().outputTokens
      return { key: (p) => a[p]!, exact: null }
    }
    case 'cost': {
      const a = need().cost
      return { key: (p) => a[p]!, exact: null }
    }
    case 'latency': {
      const c = need()
      return { key: (p) => c.latency[p]!, exact: (p) => c.latencyExact.get(p) ?? BigInt(c.latency[p]!) }
    }
  }
}

/** The rows of a string column equal to `value` kept from `sel`. */
function keepEqual(sel: Int32Array, col: StringColumn, value: string): Int32Array {
  const id = col.names.indexOf(value)
  if (id <= 0) return new Int32Array(0)
  return sel.filter((p) => col.ids[p] === id)
}

/** The listing in seq order: the index's filters, then span name and status. */
export function filteredPositions(
  idx: ChainIndex,
  filter: EntryFilter | undefined,
  flagged: Set<number> | null,
  found: Set<number> | null,
  cols: TableColumns | null,
): Int32Array {
  let sel = selectPositions(idx, filter, 'seq_asc', flagged, found)
  if (filter?.span_name !== undefined || filter?.status !== undefined) {
    if (cols === null) throw new Error('filtering by span name or status needs the table columns')
    if (filter.span_name !== undefined) sel = keepEqual(sel, cols.span, filter.span_name)
    if (filter.status !== undefined) sel = keepEqual(sel, cols.status, filter.status)
  }
  return sel
}

/** The listing `seqSel` (filtered, in seq order) in the order `sort` names. */
export function orderPositions(
  idx: ChainIndex,
  seqSel: Int32Array,
  sort: EntrySort,
  cols: TableColumns | null,
): Int32Array {
  const { column, desc } = sortParts(sort)
  if (column === 'seq') return desc ? seqSel.slice().reverse() : seqSel
  const { key, exact } = keyOf(column, idx, cols, seqSel)
  const sorted = sortByKey(seqSel, key, exact)
  return desc ? sorted.reverse() : sorted
}
