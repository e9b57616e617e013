// What the auditor sees of an opened chain: the evidence record, summaries, rows.

export interface EvidenceFile {
  path: string
  size: number
  sha256: string
  /** File modification time, ISO-8601 UTC, as found before reading. */
  mtime: string
  /** Where `path` really leads (its real path) when it is, or passes through, a symbolic link. */
  link_target?: string
  /** For a side file: whether SQLite applies it to the chain (a `-wal`, a hot `-journal`). */
  applied?: boolean
}

export interface Evidence {
  db: EvidenceFile
  /** The `-wal` file beside the chain, when there is one: its rows are part of the chain. */
  wal: EvidenceFile | null
  /** Other side files found (`-journal`, `-shm`): `applied` says whether SQLite used them. */
  side_files: EvidenceFile[]
  /** How the file was read without touching it. */
  method: string
  /** True when the bytes and mtime were re-checked unchanged after the copy. */
  unchanged_after_copy: boolean
}

/** A provider or model the chain names, and the rows that name it. */
export interface NameCount {
  /** Clipped to LIST_TEXT_UNITS when `clipped` (the whole name: listNames with `whole`). */
  name: string
  count: number
  /** The chain's name is longer than `name` (a writer's name may be megabytes). */
  clipped?: true
}

/** The names an overview leaves out (a chain may name as many as it has rows), and their rows. */
export interface NamesLeft {
  names: number
  rows: number
}

/** How many providers, and how many models, the overview lists (the most frequent first). */
export const OVERVIEW_NAMES = 100
/** The most names one `listNames` answer holds. */
export const MAX_NAMES_PAGE = 100

/** A page of the names holding a text (`listNames`), in the overview's order. */
export interface NamePage {
  names: NameCount[]
  /** How many names hold the text in all. */
  matching: number
  offset: number
}

export interface ChainOverview {
  evidence: Evidence
  entries: number
  first_seq: number | null
  last_seq: number | null
  /** ns since epoch as decimal strings (exact), and ISO renderings. */
  first_timestamp_ns: string | null
  last_timestamp_ns: string | null
  first_time: string | null
  last_time: string | null
  /** The most frequent OVERVIEW_NAMES providers (count first); the rest in `providers_left`. */
  providers: NameCount[]
  /** The most frequent OVERVIEW_NAMES models; the rest in `models_left` (`listNames` pages them all). */
  models: NameCount[]
  /** Present when the chain names more than OVERVIEW_NAMES providers: those left out of the list. */
  providers_left?: NamesLeft
  /** Present when the chain names more than OVERVIEW_NAMES models: those left out of the list. */
  models_left?: NamesLeft
  columns: string[]
  journal_mode: string
  /**
   * True while a large chain is still being opened in stages: this overview and the timeline come
   * from a first pass over seq and timestamps (read in place, read-only); the verified private copy,
   * the evidence hashes and the provider/model index follow. Poll `overview` until it is false.
   */
  pending?: boolean
}

export interface EntrySummary {
  seq: number
  timestamp_ns: string
  time: string
  span_name: string
  span_kind: string | null
  provider: string
  model: string | null
  canonical_hash: string
  has_replay: boolean
  /** The row's hmac_hash column (for copying; it proves nothing until verified with a key). */
  hmac_hash?: string
  /** From the sealed body: `gen_ai.usage.input_tokens` / `output_tokens`, `bijotel.cost_usd` (JSON numbers). */
  input_tokens?: number | null
  output_tokens?: number | null
  cost_usd?: number | null
  /** end_time_ns − start_time_ns of the sealed body, in ns (exact decimal), when both are integers. */
  latency_ns?: string | null
  /** The sealed body's status_code, when it is a string. */
  status?: string | null
  /**
   * timestamp_ns minus the previous row's in this listing taken in seq order (with its filter), in
   * ns; null for the first row or when either timestamp is not an integer. Unsealed column: it says
   * what the file holds, not when the calls happened.
   */
  delta_ns?: string | null
  /**
   * In a listing (listEntries): the text fields given only to their first LIST_TEXT_UNITS UTF-16
   * units (never half a code point), because the chain held more; getEntry gives them whole. A
   * writer's names may be megabytes each, and a page of them was sent whole for a table cell.
   */
  clipped?: ClippedField[]
}

/** The text fields of a listed row that may be clipped (EntrySummary.clipped). */
export type ClippedField =
  | 'timestamp_ns'
  | 'span_name'
  | 'span_kind'
  | 'provider'
  | 'model'
  | 'canonical_hash'
  | 'hmac_hash'
  | 'status'

/** How much of each text field a listed row carries (EntrySummary.clipped). */
export const LIST_TEXT_UNITS = 256

/** A column the entries table sorts on (the index holds seq, time, provider, model; the rest come from one pass). */
export type EntrySortColumn =
  | 'seq'
  | 'time'
  | 'provider'
  | 'model'
  | 'span'
  | 'kind'
  | 'status'
  | 'hash'
  | 'input_tokens'
  | 'output_tokens'
  | 'cost'
  | 'latency'
  | 'delta'

/** Ascending puts missing values first (SQLite's ORDER BY NULL order); descending is its exact reverse. */
export type EntrySort = `${EntrySortColumn}_${'asc' | 'desc'}`

export interface EntryFilter {
  provider?: string
  model?: string
  /** Only rows inside a verify finding or an integrity anomaly. */
  flagged_only?: boolean
  from_ns?: string
  to_ns?: string
  /** Only the rows a finished search found (`SearchResult.search_id`, tools-types.ts). */
  search_id?: string
  /** Only rows whose span_name column is exactly this text. */
  span_name?: string
  /** Only rows whose sealed body's status_code is exactly this. */
  status?: string
}

export interface EntryPage {
  total: number
  offset: number
  rows: EntrySummary[]
}

export interface EntryDetail extends EntrySummary {
  trace_id: string | null
  span_id: string | null
  prev_hash: string
  hmac_hash: string
  semantic_body_hash: string | null
  body_bytes: number
  /** The canonical body pretty-printed, or null when it is not UTF-8 JSON. */
  body_pretty: string | null
  /** The body as text (lossy) when it is not JSON, truncated for display. */
  body_text: string | null
  body_error: string | null
  prev_seq: number | null
  next_seq: number | null
  replay: Record<string, unknown> | null
}

export interface TimelineBucket {
  start_ns: string
  end_ns: string
  count: number
  by_provider: Record<string, number>
}

/** Which rows the timeline's points count (its filters without the time span). */
export interface TimelineFilter {
  provider?: string
  model?: string
  /**
   * Only rows inside a verify finding or an integrity anomaly (those the session holds, as for
   * listEntries). The time span stays the whole chain's, so the bars line up with the unfiltered ones.
   */
  flagged_only?: boolean
  /** Only the rows a finished search found (as EntryFilter.search_id). */
  search_id?: string
}

export interface TimelineRequest extends TimelineFilter {
  buckets: number
  from_ns?: string
  to_ns?: string
}

/**
 * The providers a timeline counts one by one (the most rows in it first): a chain may name one per
 * row, and every bucket named each with its count. The rest are folded (`providers_left`); their rows
 * stay in every bucket's `count`, so a bucket's others are `count` minus its `by_provider`.
 */
export const TIMELINE_PROVIDERS = 12

export interface Timeline {
  from_ns: string
  to_ns: string
  bucket_ns: string
  /** `by_provider` is keyed by the names of `providers` (at most TIMELINE_PROVIDERS). */
  buckets: TimelineBucket[]
  /** The providers counted one by one, in name order, each clipped to LIST_TEXT_UNITS (no two alike). */
  providers: string[]
  /** The names of `providers` that are clipped (the chain's name is longer). */
  providers_clipped?: string[]
  /** Present when more providers have rows in the timeline: how many, and their rows. */
  providers_left?: NamesLeft
}

/**
 * Seqs no live row holds, between two live rows of the seq-ordered listing (issue 35: the table's
 * gap rows). A fact of the listing only — what became of those seqs is the verdict's to say.
 */
export interface SeqGap {
  /** The live row before and after the absent seqs. */
  after_seq: number
  before_seq: number
  /** Position of `before_seq`'s row in the unfiltered seq_asc listing. */
  index: number
}

export interface SeqGaps {
  gaps: SeqGap[]
  /** More gaps follow past the last one listed (a page holds at most MAX_SEQ_GAPS). */
  truncated: boolean
}

/** The timestamp_ns column of live seqs (to place them on the timeline); null when not an integer. */
export interface SeqTime {
  seq: number
  timestamp_ns: string | null
}
