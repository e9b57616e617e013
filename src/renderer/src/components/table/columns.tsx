// The entries table's columns: what each shows of a row, what a copy of its cell gives, how it
// sorts, and which filter "filter by this value" sets. Values the row does not have (a token count
// never recorded, a latency whose times are not integers) are shown as an empty cell with a dash,
// never as 0; a copy of such a cell is empty.
import type { ReactNode } from 'react'
import type { ClippedField, EntrySortColumn, EntrySummary } from '../../../../shared/chain-types'
import { formatDurationNs, shortHash, shortTime } from '../../lib/format'

/** A filter "filter by this value" can set from a cell. */
export type ValueFilter = 'provider' | 'model' | 'spanName' | 'status'

export interface Column {
  id: string
  label: string
  /** The header's full name (tooltip and the column menu). */
  title: string
  sort: EntrySortColumn | null
  width: number
  /** Hidden until the auditor shows it (column menu). */
  hidden?: boolean
  /** Right-aligned numbers. */
  numeric?: boolean
  /** The cell's exact value as text ('' when the row has none). */
  copy: (r: EntrySummary) => string
  /** The cell as shown (undefined: the copy text, or a dash when it is empty). */
  render?: (r: EntrySummary) => ReactNode
  /** The cell's tooltip (undefined: the copy text). */
  tip?: (r: EntrySummary) => string
  filter?: ValueFilter
  /** The row's text field the cell shows (a listing may carry it clipped: EntrySummary.clipped). */
  field?: ClippedField
}

const missing = (v: unknown): boolean => v === null || v === undefined
const str = (v: unknown): string => (missing(v) ? '' : String(v))
const duration = (ns: string | null | undefined): ReactNode =>
  missing(ns) ? undefined : formatDurationNs(BigInt(ns!))

export const COLUMNS: readonly Column[] = [
  {
    id: 'seq',
    label: 'seq',
    title: 'seq',
    sort: 'seq',
    width: 56,
    numeric: true,
    copy: (r) => String(r.seq),
  },
  {
    id: 'time',
    field: 'timestamp_ns',
    label: 'time',
    title: 'timestamp_ns (unsealed column) as a time',
    sort: 'time',
    width: 164,
    copy: (r) => r.time,
    render: (r) => shortTime(r.time),
    tip: (r) => `${r.time} (${r.timestamp_ns} ns)`,
  },
  {
    id: 'delta',
    label: 'Δ time',
    title:
      'time since the row before it in this listing, in seq order (from timestamp_ns, unsealed; copied in ns)',
    sort: 'delta',
    width: 64,
    numeric: true,
    copy: (r) => str(r.delta_ns),
    render: (r) => duration(r.delta_ns),
    tip: (r) => (missing(r.delta_ns) ? 'no previous row with an integer timestamp' : `${r.delta_ns} ns`),
  },
  {
    id: 'provider',
    field: 'provider',
    label: 'provider',
    title: 'provider',
    sort: 'provider',
    width: 80,
    copy: (r) => r.provider,
    filter: 'provider',
  },
  {
    id: 'model',
    field: 'model',
    label: 'model',
    title: 'model',
    sort: 'model',
    width: 132,
    copy: (r) => str(r.model),
    filter: 'model',
  },
  {
    id: 'span',
    field: 'span_name',
    label: 'span',
    title: 'span name (span_name column)',
    sort: 'span',
    width: 132,
    copy: (r) => r.span_name,
    filter: 'spanName',
  },
  {
    id: 'kind',
    field: 'span_kind',
    label: 'kind',
    title: 'span kind',
    sort: 'kind',
    width: 70,
    hidden: true,
    copy: (r) => str(r.span_kind),
  },
  {
    id: 'status',
    field: 'status',
    label: 'status',
    title: 'status_code of the sealed body',
    sort: 'status',
    width: 64,
    hidden: true,
    copy: (r) => str(r.status),
    filter: 'status',
  },
  {
    id: 'input_tokens',
    label: 'in tok',
    title: 'input tokens (gen_ai.usage.input_tokens)',
    sort: 'input_tokens',
    width: 56,
    numeric: true,
    copy: (r) => str(r.input_tokens),
  },
  {
    id: 'output_tokens',
    label: 'out tok',
    title: 'output tokens (gen_ai.usage.output_tokens)',
    sort: 'output_tokens',
    width: 60,
    numeric: true,
    copy: (r) => str(r.output_tokens),
  },
  {
    id: 'cost',
    label: 'cost $',
    title: 'cost in USD (bijotel.cost_usd)',
    sort: 'cost',
    width: 68,
    numeric: true,
    copy: (r) => str(r.cost_usd),
  },
  {
    id: 'latency',
    label: 'latency',
    title: 'latency: end_time_ns − start_time_ns of the sealed body (copied in ns)',
    sort: 'latency',
    width: 64,
    numeric: true,
    copy: (r) => str(r.latency_ns),
    render: (r) => duration(r.latency_ns),
    tip: (r) => (missing(r.latency_ns) ? 'no integer start and end time in the body' : `${r.latency_ns} ns`),
  },
  {
    id: 'hash',
    field: 'canonical_hash',
    label: 'canonical hash',
    title: 'canonical_hash',
    sort: 'hash',
    width: 96,
    copy: (r) => r.canonical_hash,
    render: (r) => shortHash(r.canonical_hash, 10),
  },
  {
    id: 'hmac',
    field: 'hmac_hash',
    label: 'hmac hash',
    title: 'hmac_hash (proves nothing until verified with a key)',
    sort: null,
    width: 96,
    hidden: true,
    copy: (r) => str(r.hmac_hash),
    render: (r) => shortHash(r.hmac_hash ?? '', 10),
  },
]

/** The flags column (replay, ⚑) is always shown, last, at this width. */
export const FLAGS_WIDTH = 74
export const MIN_WIDTH = 36
export const MAX_WIDTH = 800

export function columnById(id: string): Column | undefined {
  return COLUMNS.find((c) => c.id === id)
}

/** Whether the listing carried the cell's value clipped (the entry's detail has it whole). */
export function isClipped(c: Column, r: EntrySummary): boolean {
  return c.field !== undefined && (r.clipped?.includes(c.field) ?? false)
}

/** A row as tab-separated values of the columns given (tabs and newlines inside a value become spaces). */
export function rowTsv(r: EntrySummary, cols: readonly Column[]): string {
  return cols.map((c) => c.copy(r).replace(/[\t\r\n]/g, ' ')).join('\t')
}
