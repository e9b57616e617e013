// What the table's context menu offers on a row: copies (the cell, the row as TSV, its hashes, its
// seq) and "filter by this value" for the columns a filter exists for. A filter is offered only
// for a value the row has: an empty cell is not a value to filter on. A listed row may carry long
// text clipped (EntrySummary.clipped): a copy or a filter of it takes the entry's whole values first.
import type { ApiClient } from '../../../../shared/contract'
import type { EntrySummary } from '../../../../shared/chain-types'
import { copyText } from '../../lib/download'
import { errorMessage } from '../../lib/format'
import { COLUMNS, rowTsv, type Column, type ValueFilter } from './columns'
import type { MenuItem } from './RowMenu'

export type Notify = (text: string, kind?: 'info' | 'error') => void

/** The row with every value whole (the listed row itself when nothing of it was clipped). */
export type WholeRow = (r: EntrySummary) => Promise<EntrySummary>

/**
 * `r` with its clipped fields as the entry's detail gives them. The detail must be the same row: its
 * canonical_hash begins with the listed one (equal, unless clipped too) — a row of a chain opened
 * since is refused, never copied or filtered on as this one's.
 */
export function wholeRowFrom(api: Pick<ApiClient, 'getEntry'>): WholeRow {
  return async (r) => {
    if (!r.clipped || r.clipped.length === 0) return r
    const d = await api.getEntry({ seq: r.seq })
    const same = r.clipped.includes('canonical_hash')
      ? d.canonical_hash.startsWith(r.canonical_hash)
      : d.canonical_hash === r.canonical_hash
    if (d.seq !== r.seq || !same)
      throw new Error(`seq ${r.seq} is no longer the row listed: the chain changed`)
    const out: EntrySummary = { ...r }
    for (const k of r.clipped) (out as unknown as Record<string, unknown>)[k] = d[k]
    delete out.clipped
    return out
  }
}

/** Copy `text` (or what it resolves to) and say so (or say why not) with the app's notice. */
export function copyWithNotice(text: string | Promise<string>, what: string, notify: Notify): void {
  Promise.resolve(text)
    .then(copyText)
    .then(
      () => notify(`Copied ${what}`),
      (e: unknown) => notify(`Could not copy ${what}: ${errorMessage(e)}`, 'error'),
    )
}

const f0 = (c: Column): ValueFilter | undefined => c.filter

const FILTER_NAMES: Record<ValueFilter, string> = {
  provider: 'provider',
  model: 'model',
  spanName: 'span',
  status: 'status',
}

export function menuItems(
  r: EntrySummary,
  cell: Column,
  shown: readonly Column[],
  notify: Notify,
  filterBy: (f: ValueFilter, value: string) => void,
  whole: WholeRow = async (row) => row,
): MenuItem[] {
  const copy = (text: Promise<string>, what: string): void => copyWithNotice(text, what, notify)
  const items: MenuItem[] = [
    {
      label: `Copy cell (${cell.label})`,
      onSelect: () => copy(whole(r).then(cell.copy), `${cell.label} of seq ${r.seq}`),
      testId: 'menu-copy-cell',
    },
    {
      label: 'Copy row (TSV)',
      onSelect: () =>
        copy(
          whole(r).then((w) => rowTsv(w, shown)),
          `row seq ${r.seq} (TSV)`,
        ),
      testId: 'menu-copy-row',
    },
    {
      label: 'Copy hmac_hash',
      onSelect: () =>
        copy(
          whole(r).then((w) => w.hmac_hash ?? ''),
          `hmac_hash of seq ${r.seq}`,
        ),
      testId: 'menu-copy-hmac',
    },
    {
      label: 'Copy canonical_hash',
      onSelect: () =>
        copy(
          whole(r).then((w) => w.canonical_hash),
          `canonical_hash of seq ${r.seq}`,
        ),
      testId: 'menu-copy-canonical',
    },
    {
      label: 'Copy seq',
      onSelect: () => copy(Promise.resolve(String(r.seq)), `seq ${r.seq}`),
      testId: 'menu-copy-seq',
    },
  ]
  // The cell's own column first, then the others the row has a value for.
  const filterable = [cell, ...COLUMNS.filter((c) => c !== cell)].filter((c) => c.filter !== undefined)
  for (const c of filterable) {
    const value = c.copy(r)
    // An empty cell, or the provider a staged open shows until the index is read, is no value.
    if (value === '' || (f0(c) === 'provider' && value === '(indexing…)')) continue
    const f = c.filter!
    const shownValue = value.length > 40 ? `${value.slice(0, 39)}…` : value
    items.push({
      label: `Filter: ${FILTER_NAMES[f]} = ${shownValue}`,
      onSelect: () =>
        whole(r).then(
          (w) => filterBy(f, c.copy(w)),
          (e: unknown) => notify(`Could not filter by the ${FILTER_NAMES[f]}: ${errorMessage(e)}`, 'error'),
        ),
      testId: `menu-filter-${f}`,
    })
  }
  return items
}
