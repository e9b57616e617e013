// Worker thread: the columns of one run of a source (./parallel.ts), read through the handle the
// parent posted — as workerData, or, for a worker started before its input was known, as the first
// message.
import { once } from 'node:events'
import { parentPort, workerData } from 'node:worker_threads'
import { AuditError, oneLine } from '../../base/errors'
import { sourceFromHandle } from '../source/open-source'
import type { ColumnsWorkerInput, ColumnsWorkerMessage } from './parallel'

const progress = (rows: number): void =>
  parentPort?.postMessage({ type: 'progress', rows } satisfies ColumnsWorkerMessage)

let input = workerData as ColumnsWorkerInput | null

async function run(): Promise<void> {
  input ??= ((await once(parentPort!, 'message')) as [ColumnsWorkerInput])[0]
  const { handle, place, capacity, wanted } = input
  const source = await sourceFromHandle(handle)
  try {
    const part = source.columns(place, capacity, wanted, { onRows: progress })
    const arrays = [
      part.seq,
      part.seqBig,
      part.ts,
      part.tsValid,
      part.provider,
      part.model,
      part.hasReplay,
      part.hashFp,
    ]
    const optional = [part.seconds, part.secondsSorted, part.hashFpSorted].filter((a) => a !== null)
    // A sorted column may be the column itself (already in order): each buffer is listed once.
    const transfer = [...new Set([...arrays, ...optional].map((a) => a.buffer as ArrayBuffer))]
    parentPort?.postMessage({ type: 'done', part } satisfies ColumnsWorkerMessage, transfer)
  } finally {
    source.close()
  }
}

run().catch((e: unknown) => {
  // Reading directly, anything but an AuditError sends the caller back to SQLite (see
  // ../source/open-source.ts); through SQLite it is an I/O failure.
  const direct = input !== null && input.handle.kind === 'direct'
  const code = e instanceof AuditError ? e.code : direct ? 'unsupported' : 'io'
  parentPort?.postMessage({ type: 'error', code, message: oneLine(e) } satisfies ColumnsWorkerMessage)
})
