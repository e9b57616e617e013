// Running verify partitions on worker threads. Used when the built worker script exists next to the
// running bundle (out/main/verify-worker.js); from sources (unit tests) verification stays on one thread.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { Unsupported } from '../chain/direct/format'
import { AuditError, type AuditErrorCode } from '../errors'
import type { PartitionResult, PartitionSpec } from './partition'
import type { KeyMaterial } from './secrets'
import type { WorkerInput, WorkerJob, WorkerMessage } from './worker'

/** Below this many rows, starting threads costs more than it saves. */
export const PARALLEL_MIN_ROWS = 50_000

/** Locate a built worker entry beside the bundle (shared code may sit one level down in chunks/). */
export function builtScript(name: string): string | null {
  for (const p of [join(__dirname, name), join(__dirname, '..', name)]) if (existsSync(p)) return p
  return null
}

export function verifyWorkerScript(): string | null {
  return builtScript('verify-worker.js')
}

export function defaultWorkerCount(): number {
  const forced = Number(process.env['BIJOTEL_WORKERS'])
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 16)
  return Math.max(1, Math.min(8, availableParallelism()))
}

/** One partition's job: where its rows are read from, and which rows. */
export interface PartitionJob {
  spec: PartitionSpec
  /** Direct mode: the partition's leaves. */
  leaves?: { leafFrom: number; leafTo: number }
}

/** Where every job's rows are read from. */
export interface PartitionSource {
  copyPath: string
  displayPath: string
  /** Direct mode: the chain's layout. */
  layout?: WorkerInput['layout']
}

/**
 * Runs the jobs on up to `threads` workers, each taking the next job when it finishes one, so a
 * thread slowed by the machine does not leave the others waiting at the end. Results in job order.
 */
export async function runPartitionsOnWorkers(
  script: string,
  source: PartitionSource,
  jobs: PartitionJob[],
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
    copyPath: source.copyPath,
    displayPath: source.displayPath,
    ...(source.layout ? { layout: source.layout } : {}),
    keys: keys.map((k) => ({ index: k.index, encoding: k.encoding, bytes: new Uint8Array(k.bytes) })),
    cancel,
  }
  const workers: Worker[] = []
  let next = 0
  const send = (w: Worker): boolean => {
    if (next >= jobs.length) return false
    const i = next++
    const j = jobs[i]!
    const { fromSeq, toSeq, firstOrd, first } = j.spec
    const message: WorkerJob = {
      job: i,
      spec: { fromSeq: fromSeq.toString(), toSeq: toSeq.toString(), firstOrd, first },
      ...(j.leaves ? { leaves: j.leaves } : {}),
    }
    w.postMessage(message)
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
