// Running verify runs on worker threads (./worker.ts), each taking the next run when it finishes
// one. Used when the built worker script exists next to the running bundle
// (out/main/verify-worker.js); from sources (unit tests) verification stays on one thread.
import { Worker } from 'node:worker_threads'
import { Unsupported } from '../chain/sqlite/decline'
import type { Place, ResolvedRange, SourceHandle } from '../chain/source/row-source'
import { AuditError, type AuditErrorCode } from '../base/errors'
import { builtScript } from '../base/workers'
import type { PartitionResult } from './partition'
import type { KeyMaterial } from '../chain/keys'

/** What every run of one worker shares (sent once, as workerData). */
export interface WorkerInput {
  handle: SourceHandle
  /** The range's seq bounds, as decimal text. */
  range: { fromSeq: string; toSeq: string }
  keys: { index: number; encoding: 'hex' | 'text'; bytes: Uint8Array }[]
  /** Int32 flag shared with the parent: set to 1 to cancel. */
  cancel: SharedArrayBuffer
}

/** One run: where its rows are in the source's scan, and whether it is the range's first. */
export interface WorkerJob {
  job: number
  place: Place
  first: boolean
}

export type WorkerMessage =
  | { type: 'progress'; job: number; rows: number }
  | { type: 'done'; job: number; result: PartitionResult }
  | { type: 'error'; job: number; code: string; message: string }

export function verifyWorkerScript(): string | null {
  return builtScript('verify-worker.js')
}

/**
 * Runs the jobs on up to `threads` workers, each taking the next job when it finishes one, so a
 * thread slowed by the machine does not leave the others waiting at the end. Results in job order.
 */
export async function runPartitionsOnWorkers(
  script: string,
  handle: SourceHandle,
  jobs: { place: Place; first: boolean }[],
  range: ResolvedRange,
  keys: KeyMaterial[],
  onRows: (rowsDone: number) => void,
  signal?: { aborted: boolean },
  threads = jobs.length,
): Promise<PartitionResult[]> {
  const cancel = new SharedArrayBuffer(4)
  const flag = new Int32Array(cancel)
  const done = new Array<number>(jobs.length).fill(0)
  const results = new Array<PartitionResult>(jobs.length)
  const poll = setInterval(() => {
    if (signal?.aborted) Atomics.store(flag, 0, 1)
  }, 20)
  const input: WorkerInput = {
    handle,
    range: { fromSeq: range.fromSeq.toString(), toSeq: range.toSeq.toString() },
    keys: keys.map((k) => ({ index: k.index, encoding: k.encoding, bytes: new Uint8Array(k.bytes) })),
    cancel,
  }
  const workers: Worker[] = []
  let next = 0
  const send = (w: Worker): boolean => {
    if (next >= jobs.length) return false
    const i = next++
    w.postMessage({ job: i, place: jobs[i]!.place, first: jobs[i]!.first } satisfies WorkerJob)
    return true
  }
  try {
    await Promise.all(
      Array.from(
        { length: Math.max(1, Math.min(threads, jobs.length)) },
        () =>
          new Promise<void>((resolve, reject) => {
            const w = new Worker(script, { workerData: input })
            workers.push(w)
            let settled = false
            const finish = (e?: Error): void => {
              if (settled) return
              settled = true
              if (e) reject(e)
              else resolve()
            }
            w.on('message', (m: WorkerMessage) => {
              if (m.type === 'progress') {
                done[m.job] = m.rows
                onRows(done.reduce((a, b) => a + b, 0))
              } else if (m.type === 'done') {
                results[m.job] = m.result
                if (!send(w)) finish()
              } else {
                finish(
                  m.code === 'unsupported'
                    ? new Unsupported(m.message)
                    : new AuditError(m.code as AuditErrorCode, m.message),
                )
              }
            })
            w.on('error', (e) => finish(new AuditError('io', `verify worker failed: ${e.message}`)))
            w.on('exit', (code) => finish(new AuditError('io', `verify worker exited with code ${code}`)))
            if (!send(w)) finish()
          }),
      ),
    )
    return results
  } catch (e) {
    Atomics.store(flag, 0, 1)
    throw e
  } finally {
    clearInterval(poll)
    for (const w of workers) void w.terminate()
  }
}
