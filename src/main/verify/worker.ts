// Worker thread: verifies runs of a source handed to it one at a time — rows of the private SQLite
// copy, or leaf pages read directly from the evidence file. Runs verify independently given their
// predecessor, so they run in parallel and are merged by ./verify.ts.
import { parentPort, workerData } from 'node:worker_threads'
import { preloadCopyReader, sourceFromHandle } from '../chain/source/open-source'
import type { ResolvedRange, RowSource } from '../chain/source/row-source'
import { AuditError, oneLine } from '../base/errors'
import type { WorkerInit, WorkerInput, WorkerJob, WorkerMessage } from './parallel'
import { verifyPart } from './part'
import type { KeyMaterial } from '../chain/keys'

/** What the pass's first message gives (the worker may be started before the chain is opened). */
interface Pass {
  input: WorkerInput
  keys: KeyMaterial[]
  range: ResolvedRange
  signal: { readonly aborted: boolean }
}

function passOf(input: WorkerInput): Pass {
  const flag = new Int32Array(input.cancel)
  return {
    input,
    keys: input.keys.map((k) => ({ index: k.index, encoding: k.encoding, bytes: Buffer.from(k.bytes) })),
    range: { fromSeq: BigInt(input.range.fromSeq), toSeq: BigInt(input.range.toSeq) },
    signal: {
      get aborted() {
        return Atomics.load(flag, 0) === 1
      },
    },
  }
}

// Started while a private copy is made (warmVerifyWorkers(n, 'sqlite-copy')): its reader loads now.
if ((workerData as { reader?: unknown } | null)?.reader === 'sqlite-copy') preloadCopyReader()

let pass: Pass | null = null
// Opened on the first job and kept for the next ones.
let source: RowSource | null = null

parentPort?.on('message', async (m: WorkerInit | WorkerJob) => {
  if ('input' in m) {
    pass = passOf(m.input)
    return
  }
  const job = m
  if (pass === null) {
    const message = 'a run came before its pass' // never: the pass's first message comes first
    parentPort?.postMessage({ type: 'error', job: job.job, code: 'io', message } satisfies WorkerMessage)
    return
  }
  const { input, keys, range, signal } = pass
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
