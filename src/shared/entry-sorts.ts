// The entries table's sort orders, for the handlers' checks and the renderer's headers.
import type { EntrySort, EntrySortColumn } from './chain-types'

export const ENTRY_SORT_COLUMNS: readonly EntrySortColumn[] = [
  'seq',
  'time',
  'provider',
  'model',
  'span',
  'kind',
  'status',
  'hash',
  'input_tokens',
  'output_tokens',
  'cost',
  'latency',
  'delta',
]

export const ENTRY_SORTS: readonly EntrySort[] = ENTRY_SORT_COLUMNS.flatMap((c) => [
  `${c}_asc` as const,
  `${c}_desc` as const,
])

/** A sort's column and direction (column names hold underscores: the direction is after the last). */
export function sortParts(sort: EntrySort): { column: EntrySortColumn; desc: boolean } {
  const at = sort.lastIndexOf('_')
  return { column: sort.slice(0, at) as EntrySortColumn, desc: sort.slice(at + 1) === 'desc' }
}
