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
