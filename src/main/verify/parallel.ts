// Running verify runs on worker threads (./worker.ts), each taking the next run when it finishes
// one. Used when the built worker script exists next to the running bundle
// (out/main/verify-worker.js); from sources (unit tests) verification stays on one thread.
// A worker may be started before the evidence is opened (`warmVerifyWorkers`: its code loads while
// this thread opens the file and lists the leaves), and this thread may take runs too once what
// held it busy is done (`local`: on two cores, the evidence hash's end frees a core).
import { Worker } from 'node:worker_threads'
import { Unsupported } from '../chain/sqlite/decline'
import type { Place, ResolvedRange, SourceHandle } from '../chain/source/row-source'
import { AuditError, type AuditErrorCode } from '../base/errors'
import { builtScript } from '../base/workers'
import type { PartitionResult } from './partition'
import type { KeyMaterial } from '../chain/keys'

/** What every run of one worker shares (sent once, as its first message). */
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

/** The first message a worker gets. */
export interface WorkerInit {
  input: WorkerInput
}

export type WorkerMessage =
  | { type: 'progress'; job: number; rows: number }
  | { type: 'done'; job: number; result: PartitionResult }
  | { type: 'error'; job: number; code: string; message: string }

export function verifyWorkerScript(): string | null {
  return builtScript('verify-worker.js')
}

/** Workers started ahead of a pass (`warmVerifyWorkers`), taken by the next pass that runs workers. */
const spares: Worker[] = []

/**
 * Starts up to `n` verify workers now, so their code loads while this thread opens the evidence
 * (≈0.1 s a worker, else spent after the leaves are listed) or, with `reader` 'sqlite-copy', while
 * the private copy is made (they load SQLite's side too: ≈0.2 s a worker after the copy before).
 * They hold no handle of the chain until a pass posts them one, and do not keep the process alive;
 * `dropWarmWorkers` ends those not taken.
 */
export function warmVerifyWorkers(n: number, reader: 'direct' | 'sqlite-copy' = 'direct'): void {
  const script = verifyWorkerScript()
  if (script === null) return
  while (spares.length < n) {
    const w = new Worker(script, { workerData: { reader } })
    w.unref()
    w.on('error', () => undefined) // a spare that fails is dropped on exit; a pass never takes it
    w.once('exit', () => {
      const i = spares.indexOf(w)
      if (i >= 0) spares.splice(i, 1)
    })
    spares.push(w)
  }
}

/** Ends the warm workers no pass took. */
export function dropWarmWorkers(): void {
  for (const w of spares.splice(0)) void w.terminate()
}

/** A spare worker, or a new one: kept alive while its pass runs. */
function takeWorker(script: string): Worker {
  const w = spares.pop() ?? new Worker(script)
  w.ref()
  return w
}

/** Runs this thread takes once `after` settles (`run` verifies one on this thread). */
export interface LocalRuns {
  after: Promise<unknown>
  run: (job: { place: Place; first: boolean }) => PartitionResult
}

/**
 * Runs the jobs on up to `threads` workers, each taking the next job when it finishes one, so a
 * thread slowed by the machine does not leave the others waiting at the end; with `local`, this
 * thread takes jobs too once `local.after` settles. Results in job order.
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
  local?: LocalRuns,
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
  let failed = false
  let allTaken!: () => void
  const taken = new Promise<void>((resolve) => (allTaken = resolve))
  const send = (w: Worker): boolean => {
    if (next >= jobs.length) {
      allTaken()
      return false
    }
    const i = next++
    w.postMessage({ job: i, place: jobs[i]!.place, first: jobs[i]!.first } satisfies WorkerJob)
    return true
  }
  // This thread's share: jobs not yet taken when `after` settles, one at a time, letting the
  // workers' messages through between them.
  const onThisThread = async (): Promise<void> => {
    if (!local) return
    // Not beyond the workers' last job: this thread does not wait for `after` when they took all.
    await Promise.race([local.after.catch(() => undefined), taken])
    while (next < jobs.length && !failed && !signal?.aborted) {
      const i = next++
      results[i] = local.run(jobs[i]!)
      done[i] = results[i].rows
      onRows(done.reduce((a, b) => a + b, 0))
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  try {
    await Promise.all([
      onThisThread(),
      ...Array.from(
        { length: Math.max(1, Math.min(threads, jobs.length)) },
        () =>
          new Promise<void>((resolve, reject) => {
            const w = takeWorker(script)
            workers.push(w)
            let settled = false
            const finish = (e?: Error): void => {
              if (settled) return
              settled = true
              if (e) {
                failed = true
                reject(e)
              } else resolve()
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
            w.postMessage({ input } satisfies WorkerInit)
            if (!send(w)) finish()
          }),
      ),
    ])
    return results
  } catch (e) {
    Atomics.store(flag, 0, 1)
    throw e
  } finally {
    clearInterval(poll)
    for (const w of workers) void w.terminate()
  }
}
