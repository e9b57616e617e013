// The compact per-row columns the index (overview, timeline, filters) and the integrity monitor
// read: typed arrays, about 30–70 bytes a row, that move between threads without copying.

/** The in-memory index of a chain: per row seq, timestamp, provider, model, replay flag. */
export interface IndexColumns {
  rows: number
  seq: Float64Array
  ts: BigInt64Array
  /** Rows whose timestamp column is not an integer get `tsValid[i] = 0` (and ts 0). */
  tsValid: Uint8Array
  provider: Uint32Array
  model: Uint32Array
  hasReplay: Uint8Array
  /** Each provider id's spelling, as shown. */
  providerNames: string[]
  /** Each provider id's key (../provider-key.ts: a number or `true` kept apart from a string). */
  providerKeys: string[]
  modelNames: string[]
}

export interface ColumnsPart extends IndexColumns {
  /** Exact seqs (IndexColumns.seq holds them as numbers). */
  seqBig: BigInt64Array
  /** 52-bit fingerprint of the row's hash key (see ./fingerprint.ts hashKey); NaN when falsy. */
  hashFp: Float64Array
  /** The first row whose timestamp_ns is not an integer, for the integrity monitor's error. */
  badTs: { seq: string; value: string } | null
  /**
   * Rows whose timestamp_ns is not stored as an integer but reads as one to the integrity monitor
   * (a REAL like 2.0, digits as TEXT): row index and value. The index keeps them as tsValid = 0.
   */
  looseTs: [number, bigint][]
  /**
   * With `integrity` only: the epoch second of each row's timestamp (floor; NaN for a bad one), and
   * seconds and hashFp sorted ascending (NaN last), so the monitor's burst and duplicate counts merge
   * the workers' presorted runs instead of sorting a million values on one thread.
   */
  seconds: Float64Array | null
  secondsSorted: Float64Array | null
  hashFpSorted: Float64Array | null
}

/** What the integrity monitor reads of a part. */
export type IntegrityColumns = Pick<
  ColumnsPart,
  | 'rows'
  | 'seq'
  | 'seqBig'
  | 'ts'
  | 'provider'
  | 'providerNames'
  | 'providerKeys'
  | 'looseTs'
  | 'badTs'
  | 'seconds'
  | 'secondsSorted'
  | 'hashFp'
  | 'hashFpSorted'
>

/** What a pass keeps: seq and timestamps only (a quick first index), the facts, or also the sorts. */
export interface ColumnsWanted {
  /** false: seq and timestamps only (a quick first index; providers are then `PENDING_PROVIDER`). */
  facts: boolean
  /** Also the epoch seconds and the sorted arrays of the integrity monitor. */
  integrity: boolean
}

export const INDEX_COLUMNS: ColumnsWanted = { facts: true, integrity: false }
/** A staged open's first pass: seq and timestamps only. */
export const QUICK_COLUMNS: ColumnsWanted = { facts: false, integrity: false }
export const INTEGRITY_COLUMNS: ColumnsWanted = { facts: true, integrity: true }

/** The provider of every row in a quick index, until the full index replaces it. */
export const PENDING_PROVIDER = '(indexing…)'
/** The model name of rows without one (model id 0). */
export const NO_MODEL = '(none)'
