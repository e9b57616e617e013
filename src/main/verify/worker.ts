// Worker thread: verifies runs of a source handed to it one at a time — rows of the private SQLite
// copy, or leaf pages read directly from the evidence file. Runs verify independently given their
// predecessor, so they run in parallel and are merged by ./verify.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { sourceFromHandle } from '../chain/source/open-source'
import type { ResolvedRange, RowSource } from '../chain/source/row-source'
import { AuditError, oneLine } from '../base/errors'
import type { WorkerInput, WorkerJob, WorkerMessage } from './parallel'
import { verifyPart } from './part'
import type { KeyMaterial } from '../chain/keys'

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
const range: ResolvedRange = { fromSeq: BigInt(input.range.fromSeq), toSeq: BigInt(input.range.toSeq) }
// Opened on the first job and kept for the next ones.
let source: RowSource | null = null

parentPort?.on('message', async (job: WorkerJob) => {
  try {
    source ??= await sourceFromHandle(input.handle)
    const result = verifyPart(
      source,
      keys,
      range,
      job.place,
      { firstOrd: 0, first: job.first },
      {
        onRows: (rows) =>
          parentPort?.postMessage({ type: 'progress', job: job.job, rows } satisfies WorkerMessage),
        signal,
      },
    )
    parentPort?.postMessage({ type: 'done', job: job.job, result } satisfies WorkerMessage)
  } catch (e) {
    // 'unsupported' sends the caller back to the SQLite path; it is never shown. Reading directly,
    // anything but an AuditError is a shape the reader did not foresee: SQLite decides then.
    const code = e instanceof AuditError ? e.code : input.handle.kind === 'direct' ? 'unsupported' : 'io'
    parentPort?.postMessage({
      type: 'error',
      job: job.job,
      code,
      message: oneLine(e),
    } satisfies WorkerMessage)
  }
})
