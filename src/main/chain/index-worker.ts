// Worker thread: indexes one seq range of a chain's private copy (see ./index.ts).
import { parentPort, workerData } from 'node:worker_threads'
import { AuditError, oneLine } from '../errors'
import type { IndexWorkerInput, IndexWorkerMessage } from './index'
import { indexRange } from './index'
import { openCopy } from './reader'

async function run(): Promise<void> {
  const input = workerData as IndexWorkerInput
  const { db } = openCopy(input.copyPath, input.displayPath)
  try {
    const part = await indexRange(db, BigInt(input.from), BigInt(input.to), (rows) => {
      parentPort?.postMessage({ type: 'progress', rows } satisfies IndexWorkerMessage)
    })
    parentPort?.postMessage({ type: 'done', part } satisfies IndexWorkerMessage)
  } finally {
    db.close()
  }
}

run().catch((e: unknown) => {
  const code = e instanceof AuditError ? e.code : 'io'
  parentPort?.postMessage({ type: 'error', code, message: oneLine(e) } satisfies IndexWorkerMessage)
})
