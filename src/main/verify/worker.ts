// Worker thread: verifies partitions handed to it one at a time — rows of a private SQLite copy by
// seq range, or leaf pages read directly from the evidence file. Rows verify independently given
// their predecessor, so partitions run in parallel and are merged by ./verify.ts.
import type Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'
import { RowScanner, type DirectChainLayout } from '../chain/direct/scan'
import { openCopy } from '../chain/reader'
import { AuditError, oneLine } from '../errors'
import { verifyDirectPartition } from './direct-partition'
import { verifyPartition, type PartitionResult, type PartitionSpec } from './partition'
import type { KeyMaterial } from './secrets'

/** What every job of one worker shares (sent once, as workerData). */
export interface WorkerInput {
  /** SQLite mode: the private copy to open. */
  copyPath: string
  displayPath: string
  /** Direct mode: the chain's layout (copyPath is then unused). */
  layout?: DirectChainLayout
  keys: { index: number; encoding: 'hex' | 'text'; bytes: Uint8Array }[]
  /** Int32 flag shared with the parent: set to 1 to cancel. */
  cancel: SharedArrayBuffer
}

/** One partition: its seq bounds and, in direct mode, its leaves. */
export interface WorkerJob {
  job: number
  spec: { fromSeq: string; toSeq: string; firstOrd: number; first: boolean }
  leaves?: { leafFrom: number; leafTo: number }
}

export type WorkerMessage =
  | { type: 'progress'; job: number; rows: number }
  | { type: 'done'; job: number; result: PartitionResult }
  | { type: 'error'; job: number; code: string; message: string }

const input = workerData as WorkerInput
const flag = new Int32Array(input.cancel)
const signal = {
  get aborted() {
    return Atomics.load(flag, 0) === 1
  },
}
const keys: KeyMaterial[] = input.keys.map((k) => ({
  index: k.index,
  encoding: k.encoding,
  bytes: Buffer.from(k.bytes),
}))
// Opened on the first job and kept for the next ones.
let scanner: RowScanner | null = null
let copy: { db: Database.Database; columns: Set<string> } | null = null

function run(job: WorkerJob): PartitionResult {
  const hooks = {
    onRows: (rows: number) =>
      parentPort?.postMessage({ type: 'progress', job: job.job, rows } satisfies WorkerMessage),
    signal,
  }
  const spec: PartitionSpec = {
    fromSeq: BigInt(job.spec.fromSeq),
    toSeq: BigInt(job.spec.toSeq),
    firstOrd: job.spec.firstOrd,
    first: job.spec.first,
  }
  if (input.layout && job.leaves) {
    scanner ??= new RowScanner(input.layout)
    return verifyDirectPartition(scanner, keys, { ...spec, ...job.leaves }, hooks)
  }
  copy ??= openCopy(input.copyPath, input.displayPath)
  return verifyPartition(copy.db, copy.columns, keys, spec, hooks)
}

parentPort?.on('message', (job: WorkerJob) => {
  try {
    parentPort?.postMessage({ type: 'done', job: job.job, result: run(job) } satisfies WorkerMessage)
  } catch (e) {
    // 'unsupported' sends the caller back to the SQLite path; it is never shown. Reading directly,
    // anything but an AuditError is a shape the reader did not foresee: SQLite decides then.
    const code = e instanceof AuditError ? e.code : input.layout ? 'unsupported' : 'io'
    parentPort?.postMessage({
      type: 'error',
      job: job.job,
      code,
      message: oneLine(e),
    } satisfies WorkerMessage)
  }
})
