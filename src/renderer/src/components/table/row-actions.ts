// What the table's context menu offers on a row: copies (the cell, the row as TSV, its hashes, its
// seq) and "filter by this value" for the columns a filter exists for. A filter is offered only
// for a value the row has: an empty cell is not a value to filter on.
import type { EntrySummary } from '../../../../shared/chain-types'
import { copyText } from '../../lib/download'
import { errorMessage } from '../../lib/format'
import { COLUMNS, rowTsv, type Column, type ValueFilter } from './columns'
import type { MenuItem } from './RowMenu'

export type Notify = (text: string, kind?: 'info' | 'error') => void

/** Copy `text` and say so (or say why not) with the app's notice. */
export function copyWithNotice(text: string, what: string, notify: Notify): void {
  copyText(text).then(
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
): MenuItem[] {
  const copy = (text: string, what: string): void => copyWithNotice(text, what, notify)
  const items: MenuItem[] = [
    {
      label: `Copy cell (${cell.label})`,
      onSelect: () => copy(cell.copy(r), `${cell.label} of seq ${r.seq}`),
      testId: 'menu-copy-cell',
    },
    {
      label: 'Copy row (TSV)',
      onSelect: () => copy(rowTsv(r, shown), `row seq ${r.seq} (TSV)`),
      testId: 'menu-copy-row',
    },
    {
      label: 'Copy hmac_hash',
      onSelect: () => copy(r.hmac_hash ?? '', `hmac_hash of seq ${r.seq}`),
      testId: 'menu-copy-hmac',
    },
    {
      label: 'Copy canonical_hash',
      onSelect: () => copy(r.canonical_hash, `canonical_hash of seq ${r.seq}`),
      testId: 'menu-copy-canonical',
    },
    { label: 'Copy seq', onSelect: () => copy(String(r.seq), `seq ${r.seq}`), testId: 'menu-copy-seq' },
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
      onSelect: () => filterBy(f, value),
      testId: `menu-filter-${f}`,
    })
  }
  return items
}
