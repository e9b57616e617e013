// Index workers started before their input is known (EarlyWorker): a failure while one loads its
// code, before it is given work, must reach the pass that takes it — not be lost, nor leave the pass
// waiting for a worker that is gone; a failure after it is given work reaches the caller too.
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/errors'
import { EarlyWorker, runOnWorker, type IndexWorkerInput } from '../../../src/main/chain/index'

const INPUT: IndexWorkerInput = { copyPath: '/nonexistent', displayPath: 'x.db', from: '1', to: '2' }

function early(source: string): EarlyWorker {
  return new EarlyWorker(new Worker(source, { eval: true, workerData: null }))
}

describe('EarlyWorker', () => {
  it('a worker that failed before it was given work fails the pass at once', async () => {
    const w = early('throw new Error("cannot load the index code")')
    await new Promise((ended) => w.worker.once('exit', ended))
    expect(w.failure?.message).toBe('cannot load the index code')
    const pass = runOnWorker('unused.js', INPUT, () => {}, undefined, w)
    await expect(pass).rejects.toThrow(AuditError)
    await expect(pass).rejects.toThrow('index worker failed: cannot load the index code')
  })

  it('a worker given its input by message answers with it', async () => {
    const w = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', (input) => parentPort.postMessage({ type: 'done', part: { rows: Number(input.to) } }))
    `)
    const part = await runOnWorker('unused.js', INPUT, () => {}, undefined, w)
    expect(part.rows).toBe(2)
  })

  it('a worker that fails after it was given work fails the pass', async () => {
    const w = early(`
      const { parentPort } = require('node:worker_threads')
      parentPort.once('message', () => { throw new Error('page out of range') })
    `)
    await expect(runOnWorker('unused.js', INPUT, () => {}, undefined, w)).rejects.toThrow(
      'index worker failed: page out of range',
    )
  })
})
