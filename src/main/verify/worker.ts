// Worker thread: verifies one partition — rows of a private SQLite copy by seq range, or leaf pages
// read directly from the evidence file. Rows verify independently given their predecessor, so
// partitions run in parallel and are merged by ./verify.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { RowScanner, type DirectChainLayout } from '../chain/direct/scan'
import { openCopy } from '../chain/reader'
import { AuditError, oneLine } from '../errors'
import { verifyDirectPartition } from './direct-partition'
import { verifyPartition, type PartitionResult, type PartitionSpec } from './partition'
import type { KeyMaterial } from './secrets'

export interface WorkerInput {
  /** SQLite mode: the private copy to open. */
  copyPath: string
  displayPath: string
  /** Direct mode: the chain's layout and this partition's leaves (copyPath is then unused). */
  direct?: { layout: DirectChainLayout; leafFrom: number; leafTo: number }
  keys: { index: number; encoding: 'hex' | 'text'; bytes: Uint8Array }[]
  spec: { fromSeq: string; toSeq: string; firstOrd: number; first: boolean }
  /** Int32 flag shared with the parent: set to 1 to cancel. */
  cancel: SharedArrayBuffer
}

export type WorkerMessage =
  | { type: 'progress'; rows: number }
  | { type: 'done'; result: PartitionResult }
  | { type: 'error'; code: string; message: string }

function run(): void {
  const input = workerData as WorkerInput
  const flag = new Int32Array(input.cancel)
  const hooks = {
    onRows: (rows: number) => parentPort?.postMessage({ type: 'progress', rows } satisfies WorkerMessage),
    signal: {
      get aborted() {
        return Atomics.load(flag, 0) === 1
      },
    },
  }
  const keys: KeyMaterial[] = input.keys.map((k) => ({
    index: k.index,
    encoding: k.encoding,
    bytes: Buffer.from(k.bytes),
  }))
  const spec: PartitionSpec = {
    fromSeq: BigInt(input.spec.fromSeq),
    toSeq: BigInt(input.spec.toSeq),
    firstOrd: input.spec.firstOrd,
    first: input.spec.first,
  }
  let result: PartitionResult
  if (input.direct) {
    const scanner = new RowScanner(input.direct.layout)
    try {
      result = verifyDirectPartition(
        scanner,
        keys,
        { ...spec, leafFrom: input.direct.leafFrom, leafTo: input.direct.leafTo },
        hooks,
      )
    } finally {
      scanner.close()
    }
  } else {
    const { db, columns } = openCopy(input.copyPath, input.displayPath)
    try {
      result = verifyPartition(db, columns, keys, spec, hooks)
    } finally {
      db.close()
    }
  }
  parentPort?.postMessage({ type: 'done', result } satisfies WorkerMessage)
}

try {
  run()
} catch (e) {
  // 'unsupported' sends the caller back to the SQLite path; it is never shown. Reading directly,
  // anything but an AuditError is a shape the reader did not foresee: SQLite decides then.
  const direct = (workerData as WorkerInput).direct !== undefined
  const code = e instanceof AuditError ? e.code : direct ? 'unsupported' : 'io'
  parentPort?.postMessage({ type: 'error', code, message: oneLine(e) } satisfies WorkerMessage)
}
