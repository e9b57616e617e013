// The columns of a whole chain, on worker threads when it is large and the built worker is there
// (./worker.ts): the source's runs, each read by a worker through the source's handle. Any source.
import { Worker } from 'node:worker_threads'
import { AuditError, type AuditErrorCode } from '../../base/errors'
import { leafTimesAvailable } from '../addon/leaf-pages'
import { builtScript, defaultWorkerCount, PARALLEL_MIN_ROWS } from '../../base/workers'
import { Unsupported } from '../sqlite/decline'
import type { ColumnsHooks, Place, ReaderKind, RowSource, SourceHandle } from '../source/row-source'
import { INDEX_COLUMNS, type ColumnsPart, type ColumnsWanted } from './types'

/** What a columns worker reads: a run of a source. */
export interface ColumnsWorkerInput {
  handle: SourceHandle
  place: Place
  capacity: number
  wanted: ColumnsWanted
}

export type ColumnsWorkerMessage =
  | { type: 'progress'; rows: number }
  | { type: 'done'; part: ColumnsPart }
  | { type: 'error'; code: string; message: string }

export const COLUMNS_WORKER = 'columns-worker.js'

/**
 * A columns worker started before its input is known: it loads its code while the main thread
 * lists the leaves. A failure before it is given work is kept for runOnWorker.
 */
export class EarlyWorker {
  failure: Error | null = null

  constructor(readonly worker: Worker) {
    worker.once('error', (e) => (this.failure ??= e))
  }

  static start(script: string): EarlyWorker {
    return new EarlyWorker(new Worker(script, { workerData: null }))
  }
}

/** Ends early workers: those never given work wait for it and would keep the process alive. */
export function endWorkers(workers: EarlyWorker[]): void {
  for (const e of workers) void e.worker.terminate()
}

/**
 * One run on a worker. However it ends (done, an error it reports, a crash, an exit, a cancel),
 * the cancel poll is cleared and the worker ended, so nothing is left to keep the process alive.
 */
export function runOnWorker(
  script: string,
  input: ColumnsWorkerInput,
  onRows: (n: number) => void,
  signal?: { aborted: boolean },
  early?: EarlyWorker,
): Promise<ColumnsPart> {
  return new Promise((resolve, reject) => {
    if (early?.failure) {
      void early.worker.terminate()
      reject(new AuditError('io', `columns worker failed: ${early.failure.message}`))
      return
    }
    const w = early?.worker ?? new Worker(script, { workerData: input })
    if (early) w.postMessage(input)
    let settled = false
    const settle = (end: () => void): void => {
      if (settled) return
      settled = true
      clearInterval(poll)
      void w.terminate()
      end()
    }
    const poll = setInterval(() => {
      if (signal?.aborted) settle(() => reject(new AuditError('cancelled', 'reading the chain cancelled')))
    }, 50)
    w.on('message', (m: ColumnsWorkerMessage) => {
      if (m.type === 'progress') onRows(m.rows)
      else if (m.type === 'done') settle(() => resolve(m.part))
      else
        settle(() =>
          reject(
            m.code === 'unsupported'
              ? new Unsupported(m.message)
              : new AuditError(m.code as AuditErrorCode, m.message),
          ),
        )
    })
    w.on('error', (e) => settle(() => reject(new AuditError('io', `columns worker failed: ${e.message}`))))
    w.on('exit', (code) =>
      settle(() => reject(new AuditError('io', `columns worker exited with code ${code}`))),
    )
  })
}

/** Files from this size on start their column workers before listing the leaves. */
export const EARLY_MIN_BYTES = 32 * 1024 * 1024

/**
 * Files up to this size get a quick pass the addon reads on the calling thread (bound by the
 * kernel copying pages: done before workers would have loaded their code). Larger ones go to
 * workers, which read natively too, so that the thread that answers calls (Electron's main
 * process, the server) is never held for seconds.
 */
export const QUICK_ONE_THREAD_BYTES = 3 * 1024 ** 3

/**
 * Whether a pass of `wanted` over a database of `bytes` (its pages, the WAL's newer ones included)
 * runs on the calling thread: a direct reader's quick pass, read in C.
 */
export function quickOnThisThread(
  wanted: ColumnsWanted,
  bytes: number,
  kind: ReaderKind = 'direct',
): boolean {
  return (
    kind === 'direct' &&
    !wanted.facts &&
    !wanted.integrity &&
    bytes <= QUICK_ONE_THREAD_BYTES &&
    leafTimesAvailable()
  )
}

function quickFor(wanted: ColumnsWanted, source: RowSource): boolean {
  if (source.kind !== 'direct' || wanted.facts || wanted.integrity) return false
  const f = source.facts()
  return quickOnThisThread(wanted, f.pageCount * f.pageSize, source.kind)
}

/**
 * The workers extractAllColumns will want for a pass of `wanted` over `source`, started now so
 * that they load their code while the caller lists the leaves ([] for a file it will likely read
 * on one thread). The caller ends them (endWorkers) if it fails before handing them over.
 */
export function startColumnWorkers(source: RowSource, wanted: ColumnsWanted): EarlyWorker[] {
  const script = builtScript(COLUMNS_WORKER)
  const workers = defaultWorkerCount()
  if (!script || workers < 2 || source.facts().bytes < EARLY_MIN_BYTES || quickFor(wanted, source)) return []
  return Array.from({ length: workers }, () => EarlyWorker.start(script))
}

/**
 * The columns of the rows at `place`, on worker threads when the chain is large and the built
 * worker is there (from sources, in unit tests, on this thread). Parts come back in scan order.
 * `early`: workers started by startColumnWorkers (ended here when not needed).
 */
export async function extractAllColumns(
  source: RowSource,
  place: Place,
  estimate: number,
  hooks: { onProgress?: (done: number, total: number) => void; signal?: { aborted: boolean } } = {},
  wanted: ColumnsWanted = INDEX_COLUMNS,
  early: EarlyWorker[] = [],
): Promise<ColumnsPart[]> {
  const script = builtScript(COLUMNS_WORKER)
  const workers = defaultWorkerCount()
  const total = (done: number): number => Math.max(done, estimate)
  if (!script || workers < 2 || estimate < PARALLEL_MIN_ROWS || quickFor(wanted, source)) {
    endWorkers(early)
    const columnsHooks: ColumnsHooks = {
      onRows: (n) => hooks.onProgress?.(n, total(n)),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
    }
    return [source.columns(place, estimate, wanted, columnsHooks)]
  }
  const runs = source.split(place, workers)
  endWorkers(early.slice(runs.length))
  const done = new Array<number>(runs.length).fill(0)
  const span = Math.max(1, place.to - place.from)
  // One failed run ends the others (their polls see it) instead of leaving them to run on.
  let failed = false
  const stop = {
    get aborted() {
      return failed || hooks.signal?.aborted === true
    },
  }
  try {
    return await Promise.all(
      runs.map((run, k) => {
        const { handle, place: local } = source.handle(run)
        const end = Number.isFinite(run.to) ? run.to : place.to
        const capacity = Math.ceil(((estimate * Math.max(0, end - run.from)) / span) * 1.05)
        return runOnWorker(
          script,
          { handle, place: local ?? run, capacity, wanted },
          (rows) => {
            done[k] = rows
            const d = done.reduce((a, b) => a + b, 0)
            hooks.onProgress?.(d, total(d))
          },
          stop,
          early[k],
        ).catch((e: unknown) => {
          failed = true
          throw e
        })
      }),
    )
  } finally {
    endWorkers(early)
  }
}
