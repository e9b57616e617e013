// The rows of a chain streamed to an engine that reads them all (or until it has enough): export,
// list, stats, inspect, regression, search and drift. It reads through any RowSource's cursor —
// scans in scan order or its reverse, never seeks on a divider key (./row-source.ts) — yields to the
// event loop between slices of about SLICE_MS of work (progress and cancel stay prompt, and the
// app answers other calls), and ends a pass that read its whole range by confirming that it saw
// every row of the range SQLite's own scan counts: a verdict-bearing stream (export's
// chain_signature, stats' totals) never covers fewer rows than SQLite sees.
import { AuditError } from '../../base/errors'
import { INT64_MAX, INT64_MIN, type ChainRow, type ResolvedRange, type RowSource } from './row-source'

/** Inclusive seq bounds; absent: unbounded. */
export interface SeqBounds {
  from?: bigint
  to?: bigint
}

export interface StreamOptions {
  /** The rows: a resolved range, or seq bounds (default: every row). */
  range?: ResolvedRange | SeqBounds
  /** Newest first (list's order, and reading back from the end until enough is found). */
  descending?: boolean
  /** The columns `row` reads (a SQLite source selects only those). */
  columns: readonly string[]
  signal?: { aborted: boolean }
  /** Rows read so far and the rows the range is expected to hold (an estimate on the direct reader). */
  onProgress?: (done: number, total: number) => void
  /** Milliseconds of reading between two yields (default SLICE_MS; 0: after every row or leaf). */
  sliceMs?: number
}

/** Milliseconds of reading between two yields to the event loop. */
export const SLICE_MS = 50

const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

function resolved(range: StreamOptions['range']): ResolvedRange {
  if (range !== undefined && 'fromSeq' in range) return range
  return { fromSeq: range?.from ?? INT64_MIN, toSeq: range?.to ?? INT64_MAX }
}

/**
 * Calls `row` with each row of the range, in seq order (or newest first), until it returns false.
 * Resolves to the rows passed to `row`. Throws `cancelled` when the signal is raised between slices,
 * and the source's one-line error when the rows read are not all SQLite counts in the range.
 */
export async function streamRows(
  source: RowSource,
  opts: StreamOptions,
  row: (r: ChainRow) => boolean | void,
): Promise<number> {
  const r = resolved(opts.range)
  // The range's size, for progress only: placing it costs a pass over the rowids (direct) or a count.
  const estimate = opts.onProgress && r.fromSeq <= r.toSeq ? source.place(r).estimate : 0
  const cursor = source.cursor(r, opts.columns, opts.descending ?? false)
  const sliceMs = opts.sliceMs ?? SLICE_MS
  let seen = 0
  let stopped = false
  const each = (c: ChainRow): boolean | void => {
    seen++
    if (row(c) !== false) return
    stopped = true
    return false
  }
  try {
    for (;;) {
      const t0 = performance.now()
      if (!cursor.read(each, () => performance.now() - t0 >= sliceMs)) break
      opts.onProgress?.(seen, Math.max(seen, estimate))
      await turn()
      if (opts.signal?.aborted) throw new AuditError('cancelled', 'cancelled')
    }
  } finally {
    cursor.close()
  }
  if (!stopped) source.confirmSeen(r, seen)
  source.assertUnchanged()
  opts.onProgress?.(seen, seen)
  return seen
}

/** The row's seq as a BigInt. */
export function seqOf(r: ChainRow): bigint {
  return r.rowidBig ?? BigInt(r.rowid)
}

/** Column `c`'s value (integers as BigInt), null where the table has no such column (c < 0). */
export function valueOf(r: ChainRow, c: number): unknown {
  return c < 0 ? null : r.valueBig(c)
}

/** Column `c` as bytes (`CAST(col AS BLOB)`), null where the table has no such column (c < 0). */
export function bytesOf(r: ChainRow, c: number): Buffer | null {
  return c < 0 ? null : r.castBlob(c)
}
