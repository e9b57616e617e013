// One source of rows for every engine — verify, integrity (window and --all), the index behind the
// overview and timeline, the entries table and entry detail, replay and the report — so that each
// engine is written once. Two implementations: the direct file reader (./direct-source.ts, the
// file-format reader of ../direct, sped up from inside by the native addon) and SQLite on the
// verified private copy (./copy-source.ts). Both read the chain table's rows in the order a full
// scan of its b-tree meets them (rowid order: SQLite file format §1.6, table b-tree leaves read left
// to right), and both find a run of rows by position in that scan, never by seeking on a divider
// key: interior keys are evidence like the rest, and a lowered one would make a seek skip rows a
// scan reads.
import type { Evidence } from '../../../shared/chain-types'
import type { VerifyRangeOptions } from '../../../shared/verify-types'
import type { ColumnsPart, ColumnsWanted, IntegrityColumns } from '../columns/types'
import type { DirectChain } from '../direct/open'
import type { DirectChainLayout } from '../direct/scan'
import type { Snapshot } from '../snapshot'

export type ReaderKind = 'direct' | 'sqlite-copy'

/** A record where it lies: its bytes and, per column, its serial type and the offset of its value. */
export interface RecordBytes {
  readonly buf: Buffer
  readonly types: Int32Array
  readonly offs: Int32Array
}

/**
 * One row, valid only inside the callback it is passed to. Columns are numbered as the source's
 * `col(name)` gives them. Values as better-sqlite3 returns them: `value` without safeIntegers
 * (integers as numbers), `valueBig` with it (integers as BigInt); `castBlob` is SQL's
 * `CAST(col AS BLOB)`.
 */
export interface ChainRow {
  /** seq (the rowid), exact when `rowidBig` is null. */
  readonly rowid: number
  /** seq when it is beyond ±2^53, else null. */
  readonly rowidBig: bigint | null
  isNull(c: number): boolean
  isInt(c: number): boolean
  isText(c: number): boolean
  text(c: number): string | null
  intBig(c: number): bigint | null
  value(c: number): unknown
  valueBig(c: number): unknown
  castBlob(c: number): Buffer | null
  /**
   * The record's bytes, for accelerators that prove facts on them: the direct reader's record where
   * it lies; from SQLite, null — except in a scan asked for `records`, whose rows offer the values
   * SQLite returned written as a record (./sql-record.ts).
   */
  readonly record: RecordBytes | null
}

/** What the file is, as the source read it. */
export interface FileFacts {
  reader: ReaderKind
  /** The evidence's identity: paths, sizes and mtimes; hashes when a verified copy was made. */
  evidence: Evidence
  /** `wal` when page 1's read/write versions say WAL (file format §1.3, offsets 18–19), else as SQLite says. */
  journalMode: string
  /** Committed frames of the `-wal` read with the file (0 without one, or where SQLite reads it). */
  walFrames: number
  pageSize: number
  /** Pages in the database as of its last commit. */
  pageCount: number
  /** Bytes of the file and its `-wal` (decides whether a pass is worth worker threads). */
  bytes: number
  /** The chain table's columns. */
  columns: string[]
}

/** Positions [from, to) in a source's scan: leaves for the direct reader, rows for the copy. */
export interface Place {
  from: number
  to: number
}

/** A range request resolved to inclusive seq bounds: the rows whose seq is within them. */
export interface ResolvedRange {
  fromSeq: bigint
  toSeq: bigint
}

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
/** Every row of the table. */
export const WHOLE: ResolvedRange = { fromSeq: INT64_MIN, toSeq: INT64_MAX }
export const isWhole = (r: ResolvedRange): boolean => r.fromSeq === INT64_MIN && r.toSeq === INT64_MAX

/** The row before a run (its link and seq decide the run's first row). */
export interface Predecessor {
  seq: bigint
  hmac: unknown
}

/**
 * Whether a scan's rows offer records (`ChainRow.record`): no; yes ('bytes'); yes, with the body read
 * from SQLite as text wherever that text is exactly its bytes ('text': a row where it is not stops
 * the scan with `BodyNotText`, ./sql-row.ts, and the caller reads the run again as 'bytes').
 */
export type RecordMode = false | 'bytes' | 'text'

/** What a worker thread opens the same source from (posted to it: plain data). */
export type SourceHandle =
  | { kind: 'direct'; layout: DirectChainLayout }
  | { kind: 'sqlite-copy'; copyPath: string; displayPath: string }

export interface ColumnsHooks {
  onRows?: (rows: number) => void
  signal?: { aborted: boolean }
}

/**
 * A pass over a range's rows that can stop and go on (./stream.ts drives it, yielding to the event
 * loop between reads).
 */
export interface RowCursor {
  /**
   * Reads rows in order until `row` returns false, the rows run out, or `pause()` — asked between
   * rows (the copy) or between leaves (the direct reader) — says to let the event loop run.
   * True while rows remain to read.
   */
  read(row: (r: ChainRow) => boolean | void, pause: () => boolean): boolean
  close(): void
}

export interface RowSource {
  readonly kind: ReaderKind
  /** The path messages name. */
  readonly displayPath: string
  facts(): FileFacts
  /** Column number for ChainRow accessors, -1 when the table has no such column. */
  col(name: string): number
  /** Rows in the table, counted over the whole tree (never by seeking). */
  count(): number
  /** The first and last seq of the scan, or null for an empty table. */
  ends(): [bigint, bigint] | null
  /**
   * A range request as seq bounds: seq bounds as given, time bounds to the first and last seq whose
   * timestamp is inside (none: an empty range), `last_n` counted back from the end of the scan.
   */
  resolve(range: VerifyRangeOptions | undefined): ResolvedRange
  /** Where the rows of `r` lie in the scan, and about how many rows that is (for progress). */
  place(r: ResolvedRange): { place: Place; estimate: number }
  /**
   * Runs per worker thread worth cutting: more runs even out threads the machine slows unevenly,
   * but where a run's start costs a step past every row before it (SQLite's OFFSET), one is best.
   */
  readonly runsPerThread: number
  /**
   * Optional: about how many rows `r` holds, known without a pass over them (the copy: its seq
   * span), for cutting runs before the rows are counted. Runs cut by it cover every row whatever it
   * says (`split`'s last run reads to the end of the scan); the pass is confirmed by `confirmSeen`.
   */
  spanEstimate?(r: ResolvedRange): number
  /** `place` cut into at most `n` runs in scan order (none empty). */
  split(place: Place, n: number): Place[]
  /** The row a run starting at `place.from` follows: the last row before its first row of `r`. */
  predecessor(place: Place, r: ResolvedRange): Predecessor | null
  /**
   * The rows of `r` at positions `place`, in scan order; `row` returns false to stop. `columns`:
   * the columns `row` reads (a SQLite source selects only those).
   */
  scan(
    place: Place,
    r: ResolvedRange,
    row: (r: ChainRow) => boolean | void,
    columns?: readonly string[],
  ): void
  /**
   * Optional: `scan` with the run's predecessor (as `predecessor` gives it) handed to `pred` exactly
   * once, before any row — for a source where finding it costs the same walk as reaching the run.
   * `records`: each row offers its values as a record (`ChainRow.record`), for the row provers.
   */
  scanWithPredecessor?(
    place: Place,
    r: ResolvedRange,
    pred: (p: Predecessor | null) => void,
    row: (r: ChainRow) => boolean | void,
    columns: readonly string[],
    records?: RecordMode,
  ): void
  /**
   * Optional (the copy): SQLite's count of `r`, asked of the source that has just read a run to the
   * end of the scan — a worker's connection, whose map of the copy already holds every page the
   * count visits (a count there is ≈20 ms at 1M rows; on a connection of its own it reads or maps
   * every page of the table again, ≈1.2 s). Handed to the parent's source by `countedElsewhere`.
   */
  countAfterRun?(r: ResolvedRange): number
  /** Optional: SQLite's count of `r` made by `countAfterRun` on another connection to the same copy. */
  countedElsewhere?(r: ResolvedRange, rows: number): void
  /**
   * Throws unless `seen` rows are all of `r` that a full scan of the table counts: a verdict
   * never covers fewer rows than SQLite sees.
   */
  confirmSeen(r: ResolvedRange, seen: number): void
  /**
   * The rows of `r` in scan order, or its reverse (`descending`), as a cursor the streaming engines
   * read a slice at a time (./stream.ts). Between reads it holds nothing another reader of this
   * source would trip over. `columns`: the columns the rows are read for.
   */
  cursor(r: ResolvedRange, columns: readonly string[], descending: boolean): RowCursor
  /**
   * Every row of another table of the file (reference §1.2: `cas`, `policy_daily_state`): the values
   * of `columns` (null for a column it lacks; integers as BigInt), in that table's scan order.
   * False when the file has no such table.
   */
  scanTable(name: string, columns: readonly string[], row: (values: unknown[]) => void): boolean
  /** The row with this seq, passed to `row` while valid; false when there is none. */
  find(seq: bigint, row: (r: ChainRow) => void, columns?: readonly string[]): boolean
  /**
   * The first row of the scan with this seq when the scan's first row holds it (false otherwise): a
   * whole pass's first row read without a lookup by seq; a source may lack it.
   */
  edge?(which: 'first', seq: bigint, row: (r: ChainRow) => void): boolean
  /**
   * The row the scan reads last with this seq, passed to `row` while valid; false when there is none.
   * A pass's last row is the last with its seq (a later one would be in the pass too), so this is the
   * row a pass whose last seq is `seq` ends on, whatever range it read.
   */
  findLast(seq: bigint, row: (r: ChainRow) => void, columns?: readonly string[]): boolean
  /** The row before the row with this seq in scan order (the predecessor a single row links to). */
  before(seq: bigint): Predecessor | null
  /** The index or integrity columns of the rows at `place` (all rows), in scan order. */
  columns(place: Place, capacity: number, wanted: ColumnsWanted, hooks?: ColumnsHooks): ColumnsPart
  /** The columns of the last `rows` rows of the scan (all of them in a shorter chain): the window. */
  lastColumns(rows: number, wanted: ColumnsWanted): IntegrityColumns
  /**
   * What a worker opens this source from; given a run, only what that run needs, and the run as
   * the worker's source numbers it.
   */
  handle(place?: Place): { handle: SourceHandle; place?: Place }
  /** Throws `evidence_changed` unless the evidence is as it was when the source was opened. */
  assertUnchanged(): void
  /**
   * The evidence's own files, for what reads the files themselves (recovery): `inPlace`, the very
   * file the rows are read from (its descriptors; searched beside the pass); `held`, the files the
   * open step holds while the rows come from a private copy (searched after the verdict — never
   * the copy, whose WAL SQLite has recovered into it); null in a worker, or when none are held.
   */
  evidenceFiles(): EvidenceFilesOf
  close(): void
}

export type EvidenceFilesOf = { inPlace: DirectChain } | { held: Pick<Snapshot, 'files' | 'dbPath'> } | null
