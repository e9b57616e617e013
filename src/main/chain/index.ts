// An in-memory index of an opened chain — per row: seq, timestamp, provider, model — so the
// timeline, the charts and filtered/sorted tables answer without shipping rows to the renderer or
// re-reading bodies. About 30 bytes a row. Large chains are indexed on worker threads by seq range
// (reading bodies is the cost); small ones in chunks on this thread, yielding between chunks.
import type Database from 'better-sqlite3'
import { Worker } from 'node:worker_threads'
import { AuditError, asChainReadError, type AuditErrorCode } from '../errors'
import { builtScript, defaultWorkerCount } from '../verify/parallel'
import { bodyFacts } from './body-scan'
import type { ColumnsPart, ColumnsWanted } from './direct/columns'
import { extractAllColumns, INDEX_COLUMNS, QUICK_COLUMNS, startColumnWorkers } from './direct/columns'
import { Unsupported } from './direct/format'
import { openDirect, withDirect, type DirectChain } from './direct/open'
import { RowScanner } from './direct/scan'
import { estimateRows, layoutOf } from '../verify/direct'
import type { DirectChainLayout } from './direct/scan'
import type { ChainFile } from './reader'

export interface ChainIndex {
  rows: number
  seq: Float64Array
  ts: BigInt64Array
  /** Rows whose timestamp column is not an integer get `tsValid[i] = 0` (and ts 0). */
  tsValid: Uint8Array
  provider: Uint16Array
  model: Uint16Array
  hasReplay: Uint8Array
  providerNames: string[]
  modelNames: string[]
}

/** One seq range's part of the index, with its own name tables (merged by `mergeParts`). */
export type IndexPart = ChainIndex

const CHUNK = 5000
const PARALLEL_MIN_ROWS = 50_000
export const NO_MODEL = '(none)'

export class Interner {
  readonly names: string[] = []
  private ids = new Map<string, number>()
  id(name: string): number {
    let i = this.ids.get(name)
    if (i === undefined) {
      i = Math.min(this.names.length, 65535)
      if (this.names.length < 65536) this.names.push(name)
      this.ids.set(name, i)
    }
    return i
  }
}

function grow<T extends Float64Array | BigInt64Array | Uint8Array | Uint16Array>(a: T, n: number): T {
  if (a.length >= n) return a
  const b = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2))
  b.set(a as never)
  return b
}

/**
 * Index the rows with seq in [from, to]. `onChunk` is awaited between chunks (progress, yielding,
 * cancellation); it may be omitted on a worker thread.
 */
export async function indexRange(
  db: Database.Database,
  from: bigint,
  to: bigint,
  onChunk?: (rowsDone: number) => Promise<void> | void,
): Promise<IndexPart> {
  const providers = new Interner()
  const models = new Interner()
  models.id(NO_MODEL)
  let cap = CHUNK
  let part: IndexPart = {
    rows: 0,
    seq: new Float64Array(cap),
    ts: new BigInt64Array(cap),
    tsValid: new Uint8Array(cap),
    provider: new Uint16Array(cap),
    model: new Uint16Array(cap),
    hasReplay: new Uint8Array(cap),
    providerNames: providers.names,
    modelNames: models.names,
  }
  const stmt = db
    .prepare(
      `SELECT seq, CASE WHEN typeof(timestamp_ns) = 'integer' THEN timestamp_ns END, CAST(canonical_body AS BLOB)
         FROM chain WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    )
    .raw(true)
    .safeIntegers(true)
  let after = from - 1n
  let i = 0
  for (;;) {
    let batch: unknown[][]
    try {
      batch = stmt.all(after, to, CHUNK) as unknown[][]
    } catch (e) {
      throw asChainReadError(e, 'indexing rows')
    }
    if (batch.length === 0) break
    if (i + batch.length > cap) {
      cap = Math.max(cap * 2, i + batch.length)
      part = {
        ...part,
        seq: grow(part.seq, cap),
        ts: grow(part.ts, cap),
        tsValid: grow(part.tsValid, cap),
        provider: grow(part.provider, cap),
        model: grow(part.model, cap),
        hasReplay: grow(part.hasReplay, cap),
      }
    }
    for (const [seq, ts, body] of batch) {
      const buf = Buffer.isBuffer(body) ? body : EMPTY
      const facts = bodyFacts(buf)
      part.seq[i] = Number(seq as bigint)
      if (typeof ts === 'bigint') {
        part.ts[i] = ts
        part.tsValid[i] = 1
      }
      part.provider[i] = providers.id(facts.provider)
      const m = facts.model
      part.model[i] = m === null ? 0 : models.id(m)
      part.hasReplay[i] = facts.replay ? 1 : 0
      after = seq as bigint
      i++
    }
    await onChunk?.(i)
    if (batch.length < CHUNK) break
  }
  const trim = <T extends Float64Array | BigInt64Array | Uint8Array | Uint16Array>(a: T): T =>
    a.slice(0, i) as T
  return {
    rows: i,
    seq: trim(part.seq),
    ts: trim(part.ts),
    tsValid: trim(part.tsValid),
    provider: trim(part.provider),
    model: trim(part.model),
    hasReplay: trim(part.hasReplay),
    providerNames: providers.names,
    modelNames: models.names,
  }
}

const EMPTY = Buffer.alloc(0)

/** Concatenate parts (in seq order), re-numbering their provider and model ids into one table. */
export function mergeParts(parts: IndexPart[]): ChainIndex {
  const providers = new Interner()
  const models = new Interner()
  models.id(NO_MODEL)
  const maps = parts.map((p) => ({
    provider: p.providerNames.map((n) => providers.id(n)),
    model: p.modelNames.map((n) => models.id(n)),
  }))
  const same = (map: number[]): boolean => map.every((id, k) => id === k)
  const kept = maps.map((m) => same(m.provider) && same(m.model))
  const names = { providerNames: providers.names, modelNames: models.names }
  // One part whose ids are already the merged ones (a pass on one thread): its columns, not a copy
  // (≈22 MB of fresh memory at 1M rows, and fresh memory is slow to touch on this project's VMs).
  if (parts.length === 1 && kept[0]) {
    const p = parts[0]!
    const rows = p.rows
    return {
      rows,
      seq: p.seq.subarray(0, rows),
      ts: p.ts.subarray(0, rows),
      tsValid: p.tsValid.subarray(0, rows),
      provider: p.provider.subarray(0, rows),
      model: p.model.subarray(0, rows),
      hasReplay: p.hasReplay.subarray(0, rows),
      ...names,
    }
  }
  const rows = parts.reduce((n, p) => n + p.rows, 0)
  const idx: ChainIndex = {
    rows,
    seq: new Float64Array(rows),
    ts: new BigInt64Array(rows),
    tsValid: new Uint8Array(rows),
    provider: new Uint16Array(rows),
    model: new Uint16Array(rows),
    hasReplay: new Uint8Array(rows),
    ...names,
  }
  let at = 0
  parts.forEach((p, k) => {
    idx.seq.set(p.seq, at)
    idx.ts.set(p.ts, at)
    idx.tsValid.set(p.tsValid, at)
    idx.hasReplay.set(p.hasReplay, at)
    if (kept[k]) {
      idx.provider.set(p.provider.subarray(0, p.rows), at)
      idx.model.set(p.model.subarray(0, p.rows), at)
    } else {
      const { provider: pmap, model: mmap } = maps[k]!
      for (let i = 0; i < p.rows; i++) {
        idx.provider[at + i] = pmap[p.provider[i]!]!
        idx.model[at + i] = mmap[p.model[i]!]!
      }
    }
    at += p.rows
  })
  return idx
}

export type IndexWorkerInput =
  | { copyPath: string; displayPath: string; from: string; to: string }
  | {
      direct: {
        layout: DirectChainLayout
        leafFrom: number
        leafTo: number
        capacity: number
        wanted: ColumnsWanted
      }
    }

export type IndexWorkerMessage =
  | { type: 'progress'; rows: number }
  | { type: 'done'; part: IndexPart | ColumnsPart }
  | { type: 'error'; code: string; message: string }

function seqBounds(db: Database.Database): [bigint, bigint] | null {
  try {
    const r = db.prepare('SELECT MIN(seq), MAX(seq) FROM chain').raw(true).safeIntegers(true).get() as [
      bigint | null,
      bigint | null,
    ]
    return r[0] === null || r[1] === null ? null : [r[0], r[1]]
  } catch (e) {
    throw asChainReadError(e, 'reading the seq range')
  }
}

/**
 * An index worker started before its input is known: it loads its code (≈0.1 s here) while the
 * main thread lists the leaves. A failure before it is given work is kept for runOnWorker.
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

export function runOnWorker<P extends IndexPart>(
  script: string,
  input: IndexWorkerInput,
  onRows: (n: number) => void,
  signal?: { aborted: boolean },
  early?: EarlyWorker,
): Promise<P> {
  return new Promise((resolve, reject) => {
    if (early?.failure) {
      reject(new AuditError('io', `index worker failed: ${early.failure.message}`))
      return
    }
    const w = early?.worker ?? new Worker(script, { workerData: input })
    if (early) w.postMessage(input)
    const poll = setInterval(() => {
      if (signal?.aborted) {
        void w.terminate()
        reject(new AuditError('cancelled', 'indexing cancelled'))
      }
    }, 50)
    const done = (): void => clearInterval(poll)
    // A worker ended from outside (endWorkers, when another part failed first) posts nothing more:
    // its poll must stop with it, or the timer keeps the process alive after the answer is out.
    w.once('exit', done)
    w.on('message', (m: IndexWorkerMessage) => {
      if (m.type === 'progress') onRows(m.rows)
      else if (m.type === 'done') {
        done()
        resolve(m.part as P)
        void w.terminate()
      } else {
        done()
        void w.terminate()
        reject(
          m.code === 'unsupported'
            ? new Unsupported(m.message)
            : new AuditError(m.code as AuditErrorCode, m.message),
        )
      }
    })
    w.on('error', (e) => {
      done()
      reject(new AuditError('io', `index worker failed: ${e.message}`))
    })
  })
}

/**
 * The index of an opened chain: read straight from the pages of its private copy when the direct
 * reader takes the file (several times faster than row queries), else through SQLite.
 */
export async function buildChainIndex(
  chain: ChainFile,
  onProgress?: (done: number, total: number) => void,
  signal?: { aborted: boolean },
): Promise<ChainIndex> {
  return (
    (await withDirect(chain.snapshot.dbPath, (d) => directIndex(d, onProgress, signal))) ??
    sqliteIndex(chain, onProgress, signal)
  )
}

export async function directIndex(
  path: string | DirectChain,
  onProgress?: (done: number, total: number) => void,
  signal?: { aborted: boolean },
  /** false: seq and timestamps only (see extractColumns). */
  facts = true,
  /** Workers the caller started before listing the leaves (ended here in any case). */
  started?: EarlyWorker[],
): Promise<ChainIndex> {
  const direct = typeof path === 'string' ? openDirect(path) : path
  const wanted = facts ? INDEX_COLUMNS : QUICK_COLUMNS
  const early = started ?? []
  // A chain opened here is closed here; one given is its caller's to close.
  const owned = typeof path === 'string'
  try {
    const scanner = new RowScanner(layoutOf(direct))
    try {
      if (!started) early.push(...startColumnWorkers(direct, wanted))
      const leaves = direct.leaves.pages.length
      const parts = await extractAllColumns(
        scanner,
        0,
        leaves,
        estimateRows(scanner, 0, leaves),
        { ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) },
        wanted,
        early,
      )
      return mergeParts(parts)
    } finally {
      scanner.close()
    }
  } finally {
    endWorkers(early) // those not given work, when an error came first
    if (owned) direct.close()
  }
}

export async function sqliteIndex(
  chain: ChainFile,
  onProgress?: (done: number, total: number) => void,
  signal?: { aborted: boolean },
): Promise<ChainIndex> {
  const bounds = seqBounds(chain.db)
  if (!bounds) return mergeParts([])
  const [lo, hi] = bounds
  const estimate = Number(hi - lo + 1n)
  const script = builtScript('index-worker.js')
  const workers = defaultWorkerCount()
  if (script && workers > 1 && estimate >= PARALLEL_MIN_ROWS) {
    const n = BigInt(workers)
    const span = hi - lo + 1n
    const done = new Array<number>(workers).fill(0)
    const parts = await Promise.all(
      Array.from({ length: workers }, (_, k) => {
        const K = BigInt(k)
        const from = k === 0 ? lo : lo + (span * K) / n
        const to = k === workers - 1 ? hi : lo + (span * (K + 1n)) / n - 1n
        return runOnWorker(
          script,
          {
            copyPath: chain.snapshot.dbPath,
            displayPath: chain.displayPath,
            from: from.toString(),
            to: to.toString(),
          },
          (rows) => {
            done[k] = rows
            onProgress?.(
              done.reduce((a, b) => a + b, 0),
              estimate,
            )
          },
          signal,
        )
      }),
    )
    return mergeParts(parts)
  }
  const part = await indexRange(chain.db, lo, hi, async (rows) => {
    onProgress?.(rows, estimate)
    if (signal?.aborted) throw new AuditError('cancelled', 'indexing cancelled')
    // Let other work (IPC, HTTP requests) run between chunks.
    await new Promise<void>((r) => setImmediate(r))
  })
  return mergeParts([part])
}

/** Row position of a seq (binary search; seqs are ascending). */
export function positionOfSeq(idx: ChainIndex, seq: number): number | null {
  let lo = 0
  let hi = idx.rows - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = idx.seq[mid]!
    if (v === seq) return mid
    if (v < seq) lo = mid + 1
    else hi = mid - 1
  }
  return null
}
