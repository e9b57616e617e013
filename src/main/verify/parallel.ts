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
import type { WorkerInput, WorkerMessage } from './worker'

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
  copyPath: string
  displayPath: string
  direct?: WorkerInput['direct']
  spec: PartitionSpec
}

export async function runPartitionsOnWorkers(
  script: string,
  jobs: PartitionJob[],
  keys: KeyMaterial[],
  onRows: (rowsDone: number) => void,
  signal?: { aborted: boolean },
): Promise<PartitionResult[]> {
  const specs = jobs.map((j) => j.spec)
  const cancel = new SharedArrayBuffer(4)
  const flag = new Int32Array(cancel)
  const done = new Array<number>(specs.length).fill(0)
  const poll = setInterval(() => {
    if (signal?.aborted) Atomics.store(flag, 0, 1)
  }, 20)
  const workers: Worker[] = []
  try {
    return await Promise.all(
      specs.map(
        (spec, i) =>
          new Promise<PartitionResult>((resolve, reject) => {
            const job = jobs[i]!
            const input: WorkerInput = {
              copyPath: job.copyPath,
              displayPath: job.displayPath,
              ...(job.direct ? { direct: job.direct } : {}),
              keys: keys.map((k) => ({
                index: k.index,
                encoding: k.encoding,
                bytes: new Uint8Array(k.bytes),
              })),
              spec: {
                fromSeq: spec.fromSeq.toString(),
                toSeq: spec.toSeq.toString(),
                firstOrd: spec.firstOrd,
                first: spec.first,
              },
              cancel,
            }
            const w = new Worker(script, { workerData: input })
            workers.push(w)
            let settled = false
            w.on('message', (m: WorkerMessage) => {
              if (m.type === 'progress') {
                done[i] = m.rows
                onRows(done.reduce((a, b) => a + b, 0))
              } else if (m.type === 'done') {
                settled = true
                resolve(m.result)
              } else {
                settled = true
                reject(
                  m.code === 'unsupported'
                    ? new Unsupported(m.message)
                    : new AuditError(m.code as AuditErrorCode, m.message),
                )
              }
            })
            w.on('error', (e) => {
              settled = true
              reject(new AuditError('io', `verify worker failed: ${e.message}`))
            })
            w.on('exit', (code) => {
              if (!settled) reject(new AuditError('io', `verify worker exited with code ${code}`))
            })
          }),
      ),
    )
  } catch (e) {
    Atomics.store(flag, 0, 1)
    throw e
  } finally {
    clearInterval(poll)
    for (const w of workers) void w.terminate()
  }
}
