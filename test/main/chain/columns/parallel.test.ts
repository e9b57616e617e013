// Column workers (runOnWorker, EarlyWorker): a failure while one loads its code, before it is given
// work, must reach the pass that takes it — not be lost, nor leave the pass waiting for a worker
// that is gone; a failure after it is given work, or an exit without an answer, reaches the caller
// too; and however a run ends, its worker is ended and its cancel poll cleared, so nothing is left
// to keep the process alive.
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../../src/main/base/errors'
import {
  EarlyWorker,
  runOnWorker,
  type ColumnsWorkerInput,
} from '../../../../src/main/chain/columns/parallel'
import { QUICK_COLUMNS } from '../../../../src/main/chain/columns/types'

const INPUT: ColumnsWorkerInput = {
  handle: { kind: 'sqlite-copy', copyPath: '/nonexistent', displayPath: 'x.db' },
  place: { from: 0, to: 2 },
  capacity: 16,
  wanted: QUICK_COLUMNS,
}

function early(source: string): EarlyWorker {
  return new EarlyWorker(new Worker(source, { eval: true, workerData: null }))
}

/** Whether the worker's thread has ended (terminate() on an ended worker resolves undefined). */
async function ended(w: Worker): Promise<boolean> {
  return (
    (await Promise.race([w.terminate(), new Promise((r) => setTimeout(() => r('alive'), 1000))])) !== 'alive'
  )
}

describe('column workers', () => {
  it('a worker that failed before it was given work fails the pass at once', async () => {
    const w = early('throw new Error("cannot load the columns code")')
    await new Promise((done) => w.worker.once('exit', done))
    expect(w.failure?.message).toBe('cannot load the columns code')
    const pass = runOnWorker('unused.js', INPUT, () => {}, undefined, w)
    await expect(pass).rejects.toThrow(AuditError)
    await expect(pass).rejects.toThrow('columns worker failed: cannot load the columns code')
  })

  it('a worker given its input by message answers with it', async () => {
    const w = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', (input) => parentPort.postMessage({ type: 'done', part: { rows: input.place.to } }))
    `)
    const part = await runOnWorker('unused.js', INPUT, () => {}, undefined, w)
    expect(part.rows).toBe(2)
    expect(await ended(w.worker)).toBe(true)
  })

  it('a worker that fails after it was given work fails the pass', async () => {
    const w = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', () => { throw new Error('page out of range') })
    `)
    await expect(runOnWorker('unused.js', INPUT, () => {}, undefined, w)).rejects.toThrow(
      'columns worker failed: page out of range',
    )
  })

  it('a worker that reports a refusal, or exits without an answer, fails the pass and is ended', async () => {
    const refusing = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', () => {
        parentPort.postMessage({ type: 'error', code: 'unsupported', message: 'not for the direct reader' })
        setInterval(() => {}, 1000) // would keep its thread, and the process, alive
      })
    `)
    await expect(runOnWorker('unused.js', INPUT, () => {}, undefined, refusing)).rejects.toThrow(
      'not for the direct reader',
    )
    expect(await ended(refusing.worker)).toBe(true)
    const silent = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', () => process.exit(3))
    `)
    await expect(runOnWorker('unused.js', INPUT, () => {}, undefined, silent)).rejects.toThrow(
      'columns worker exited with code 3',
    )
  })

  it('a cancel ends the worker', async () => {
    const busy = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', () => setInterval(() => {}, 1000))
    `)
    const signal = { aborted: false }
    const pass = runOnWorker('unused.js', INPUT, () => {}, signal, busy)
    signal.aborted = true
    await expect(pass).rejects.toMatchObject({ code: 'cancelled' })
    expect(await ended(busy.worker)).toBe(true)
  })
})
