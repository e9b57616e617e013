// The auditor's working tools in the app (issue 26): search over the chain, a typed time range, and
// export of what the table shows. Types only; the engine is src/main/search (and src/main/export/view-export.ts), the calls are in
// contract.ts.
import type { EntryFilter, EntrySort } from './chain-types'

/** Where a search looks. `body` is the text inside the sealed canonical body (its UTF-8 bytes). */
export type SearchField = 'trace_id' | 'span_id' | 'span_name' | 'model' | 'body'

export interface SearchRequest {
  /** The text to find (1 to 1000 characters). */
  query: string
  /** Default: every field. */
  fields?: SearchField[]
  /** Default false: ASCII letters match either case (the body is compared as bytes otherwise). */
  case_sensitive?: boolean
  /** Search only rows inside this time range (inclusive ns bounds, decimal strings). */
  from_ns?: string
  to_ns?: string
}

export interface SearchResult {
  /** Name of this result: pass it as `search_id` in an EntryFilter or a TimelineRequest. */
  search_id: string
  query: string
  fields: SearchField[]
  case_sensitive: boolean
  /** Rows read. */
  scanned: number
  /** Every matching seq, ascending. */
  seqs: number[]
  /** Matches per field (a row matching in two fields counts in both). */
  by_field: Partial<Record<SearchField, number>>
}

/** Quick ranges beside the brush. Relative to the chain's last timestamp (evidence is not live). */
export type TimePreset = 'last_hour' | 'last_day' | 'last_7_days' | 'whole_chain'

export interface TimeRangeRequest {
  preset?: TimePreset
  /**
   * Typed bounds: `2025-11-24`, `2025-11-24 16:03`, `2025-11-24T16:03:04.869Z`, an offset such as
   * `+02:00`, or a plain integer of ns since the epoch. Empty or absent: open on that side.
   * A date alone as `to` means the end of that day.
   */
  from?: string
  to?: string
  /** Minutes east of UTC the typed text is in when it names no zone (the app's chosen zone; default 0). */
  utc_offset_minutes?: number
}

export interface TimeRange {
  /** Inclusive bounds in ns (decimal strings), null when open on that side. */
  from_ns: string | null
  to_ns: string | null
  /** ISO-8601 UTC renderings (nanoseconds), null when open. */
  from_time: string | null
  to_time: string | null
  /** Rows of the chain inside the range. */
  rows: number
}

export type ViewExportFormat = 'jsonl' | 'csv' | 'reference'

export interface ViewExportRequest {
  format: ViewExportFormat
  sort?: EntrySort
  filter?: EntryFilter
}

/**
 * The rows in view. JSONL: one object per row `{seq, timestamp_ns, time, provider, model,
 * canonical_hash, prev_hash, hmac_hash, marks}`; CSV: the same columns (RFC 4180, `marks` joined
 * by `;`). `marks`: the verify findings (keyed or keyless) and integrity anomalies naming the row.
 * `reference`: Python BIJOTEL's export file (reference §9.1) of the view's seq span, keyed by the
 * session's first key; refused without a key.
 */
export interface ViewExport {
  format: ViewExportFormat
  file_name: string
  media_type: string
  rows: number
  content: string
}
