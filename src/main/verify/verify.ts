// Whole-chain or segment verification over any row source: the range resolved and placed by the
// source (by scanning, never by seeking), its rows verified in one run on this thread or in runs on
// worker threads, every row of the range confirmed seen, and the verdict assembled.
import { keyNotices, priorNamed } from './key-notices'
import type { VerifyVerdict } from '../../shared/verify-types'
import type { Place, ResolvedRange, RowSource } from '../chain/source/row-source'
import { digestRows, priorBounds } from '../chain/rows-digest'
import { defaultWorkerCount, PARALLEL_MIN_ROWS } from '../base/workers'
import { hasRange, requireKeys, type VerifyOptions } from './options'
import { runPartitionsOnWorkers, verifyWorkerScript } from './parallel'
import { verifyPart } from './part'
import { shrinkingRuns } from './run-sizes'
import type { PartitionResult } from './partition'
import type { KeyMaterial } from '../chain/keys'
import { assembleVerdict, shiftOrdinals } from './verdict'
import { liveFacts, requirePriorOfThisChain } from './prior-chain'

export { hasRange, requireKeys, type VerifyOptions } from './options'

/** Verify a chain (or a segment of it) read through `source` against a candidate key set. */
export async function verifyRows(
  source: RowSource,
  keys: KeyMaterial[],
  opts: VerifyOptions = {},
): Promise<VerifyVerdict> {
  requireKeys(keys, opts)
  const range = source.resolve(opts.range)
  // A source that can say about how many rows the range holds without a pass (the copy, whose
  // count is a pass over the whole table) cuts its runs by that, and counts after them.
  const span = source.spanEstimate?.(range)
  let placed = span === undefined ? source.place(range) : null
  const estimate = placed?.estimate ?? span!
  // Progress counts against the exact rows once they are known: the caller's, else the placement's
  // (a source's count of a range) as soon as it is made, never the seq span or a sample.
  let progressTotal = opts.rowsKnown ?? estimate
  const counted = (p: { estimate: number }): void => {
    if (opts.rowsKnown === undefined) progressTotal = p.estimate
  }
  const progress = (done: number): void => opts.onProgress?.(done, Math.max(done, progressTotal))
  const workers = opts.workers ?? defaultWorkerCount()
  const script = verifyWorkerScript()
  let parts: PartitionResult[]
  if (
    script &&
    (workers > 1 || (opts.offThread === true && workers === 1)) &&
    estimate >= PARALLEL_MIN_ROWS
  ) {
    // Every run but the last ends where the estimate says; the last reads to the end of the scan.
    // A thread that helps later (helpAfter) counts as one more: the runs are cut finer, so the
    // rows left when it starts are shared between it and the workers.
    // A source whose runs cost nothing to start (the direct reader) is cut finer, and the pieces
    // joined into runs that shrink towards the end (./run-sizes.ts).
    const threads = workers + (opts.helpAfter ? 1 : 0)
    const where = placed?.place ?? { from: 0, to: estimate }
    const runs =
      source.runsPerThread > 1
        ? shrinkingRuns(source.split(where, threads * source.runsPerThread * 4), threads)
        : source.split(where, threads * source.runsPerThread)
    const running = runPartitionsOnWorkers(
      script,
      source.handle().handle,
      runs.map((run, i) => ({ place: run, first: i === 0 })),
      range,
      keys,
      progress,
      opts.signal,
      workers,
      opts.helpAfter && {
        after: opts.helpAfter,
        run: (job) =>
          verifyPart(
            source,
            keys,
            range,
            job.place,
            { firstOrd: 0, first: job.first },
            {
              ...(opts.signal ? { signal: opts.signal } : {}),
            },
          ),
      },
    )
    parts = await running
    // A source that counts after a run (the copy) had the worker that read to the end of the scan
    // make SQLite's count of the range there (kept by the source for confirmSeen), not before the
    // workers start nor beside them on a connection of its own.
    if (placed === null) {
      const count = parts.find((p) => p.counted !== undefined)?.counted
      if (count !== undefined) source.countedElsewhere?.(range, count)
      counted((placed = source.place(range)))
    }
    parts = shiftOrdinals(parts)
  } else {
    if (placed === null) counted((placed = source.place(range)))
    parts = shiftOrdinals(onThisThread(source, keys, range, placed.place, opts, progress))
  }
  const rows = parts.reduce((s, p) => s + p.rows, 0)
  source.confirmSeen(range, rows)
  const total = hasRange(opts.range) ? source.count() : rows
  const mac = source.col('hmac_hash')
  const lookup = (seq: number): unknown => {
    let v: unknown = undefined
    source.find(BigInt(seq), (c) => (v = c.value(mac)), ['hmac_hash'])
    return v
  }
  // A report as the prior: its rows are read again (seq and hmac_hash only) to find any gone or changed.
  const p = opts.prior?.rows
  const rowsNow = p ? digestRows(source, p.block_size, priorBounds(p)) : undefined
  if (opts.prior && !opts.priorLinked)
    requirePriorOfThisChain(opts.prior, liveFacts(source, opts.prior, rowsNow, keys))
  const verdict = assembleVerdict(parts, lookup, opts, total, rowsNow)
  source.assertUnchanged()
  return priorNamed(keyNotices(verdict, keys))
}

function onThisThread(
  source: RowSource,
  keys: KeyMaterial[],
  range: ResolvedRange,
  place: Place,
  opts: VerifyOptions,
  progress: (done: number) => void,
): PartitionResult[] {
  const runs = opts.runs !== undefined && opts.runs > 1 ? source.split(place, opts.runs) : [place]
  let before = 0
  return runs.map((run, i) => {
    const part = verifyPart(
      source,
      keys,
      range,
      run,
      { firstOrd: 0, first: i === 0 },
      {
        onRows: (n) => progress(before + n),
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
    )
    before += part.rows
    return part
  })
}
