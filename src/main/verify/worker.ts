// Worker thread: verifies one partition of a chain's private copy. Rows verify independently given
// their predecessor, so partitions run in parallel and are merged by ./verify.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { openCopy } from '../chain/reader'
import { AuditError, oneLine } from '../errors'
import { verifyPartition, type PartitionSpec } from './partition'
import type { KeyMaterial } from './secrets'

export interface WorkerInput {
  copyPath: string
  displayPath: string
  keys: { index: number; encoding: 'hex' | 'text'; bytes: Uint8Array }[]
  spec: { fromSeq: string; toSeq: string; firstOrd: number; first: boolean }
  /** Int32 flag shared with the parent: set to 1 to cancel. */
  cancel: SharedArrayBuffer
}

export type WorkerMessage =
  | { type: 'progress'; rows: number }
  | { type: 'done'; result: ReturnType<typeof verifyPartition> }
  | { type: 'error'; code: string; message: string }

function run(): void {
  const input = workerData as WorkerInput
  const flag = new Int32Array(input.cancel)
  const signal = {
    get aborted() {
      return Atomics.load(flag, 0) === 1
    },
  }
  const { db, columns } = openCopy(input.copyPath, input.displayPath)
  try {
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
    const result = verifyPartition(db, columns, keys, spec, {
      onRows: (rows) => parentPort?.postMessage({ type: 'progress', rows } satisfies WorkerMessage),
      signal,
    })
    parentPort?.postMessage({ type: 'done', result } satisfies WorkerMessage)
  } finally {
    db.close()
  }
}

try {
  run()
} catch (e) {
  const code = e instanceof AuditError ? e.code : 'io'
  parentPort?.postMessage({ type: 'error', code, message: oneLine(e) } satisfies WorkerMessage)
}
