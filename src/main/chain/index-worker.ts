// Worker thread: indexes one seq range of a chain's private copy, or extracts the columns of a run
// of leaf pages read directly from the file (see ./index.ts and ./direct/columns.ts).
import { once } from 'node:events'
import { parentPort, workerData } from 'node:worker_threads'
import { AuditError, oneLine } from '../errors'
import { extractColumns } from './direct/columns'
import { RowScanner } from './direct/scan'
import type { IndexWorkerInput, IndexWorkerMessage } from './index'
import { indexRange } from './index'
import { openCopy } from './reader'

const progress = (rows: number): void =>
  parentPort?.postMessage({ type: 'progress', rows } satisfies IndexWorkerMessage)

/** The input: workerData, or for a worker started before its input was known, the first message. */
let input: IndexWorkerInput | null = workerData as IndexWorkerInput | null

async function run(): Promise<void> {
  input ??= ((await once(parentPort!, 'message')) as [IndexWorkerInput])[0]
  if ('direct' in input) {
    const { layout, leafFrom, leafTo, capacity, wanted } = input.direct
    const scanner = new RowScanner(layout)
    try {
      const part = extractColumns(scanner, leafFrom, leafTo, capacity, { onRows: progress }, wanted)
      const buffers = [
        part.seq,
        part.seqBig,
        part.ts,
        part.tsValid,
        part.provider,
        part.model,
        part.hasReplay,
      ]
      const optional = [part.seconds, part.secondsSorted, part.hashFpSorted].filter((a) => a !== null)
      // A sorted column may be the column itself (already in order): each buffer is listed once.
      const transfer = [
        ...new Set([...buffers, part.hashFp, ...optional].map((a) => a.buffer as ArrayBuffer)),
      ]
      parentPort?.postMessage({ type: 'done', part } satisfies IndexWorkerMessage, transfer)
    } finally {
      scanner.close()
    }
    return
  }
  const { db } = openCopy(input.copyPath, input.displayPath)
  try {
    const part = await indexRange(db, BigInt(input.from), BigInt(input.to), progress)
    parentPort?.postMessage({ type: 'done', part } satisfies IndexWorkerMessage)
  } finally {
    db.close()
  }
}

run().catch((e: unknown) => {
  // Reading directly, anything but an AuditError sends the caller back to SQLite (see worker.ts).
  const direct = input !== null && 'direct' in input
  const code = e instanceof AuditError ? e.code : direct ? 'unsupported' : 'io'
  parentPort?.postMessage({ type: 'error', code, message: oneLine(e) } satisfies IndexWorkerMessage)
})
