// Forensic reading without touching the evidence.
//
// SQLite cannot be trusted to leave a file alone: even a read-only connection creates `-wal`/`-shm`
// beside a WAL-mode database, fails in a read-only folder, and better-sqlite3 takes no
// `immutable=1` URI. So the chain is never opened where it lies. It (and its `-wal`, whose
// un-checkpointed rows are part of the chain) is copied into a private temporary folder; then the
// original and the copy are hashed (in parallel, on worker threads for large files) and must agree,
// and the original's size and mtime must not have moved — so every later answer is about exactly
// the bytes recorded in the evidence block. SQLite then works on the copy, where its side files do
// no harm.
import { createHash } from 'node:crypto'
import { constants as fsc, promises as fsp, rmSync, type Stats } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { tmpdir, totalmem } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { Evidence, EvidenceFile } from '../../shared/chain-types'
import { AuditError, oneLine } from '../errors'
import { READ_SKEW, readBuffer } from './read-buffer'

const CHUNK = 4 * 1024 * 1024

export interface Snapshot {
  /** Path of the private copy SQLite may open. */
  readonly dbPath: string
  readonly evidence: Evidence
  dispose(): void
}

export interface SnapshotOptions {
  /** Folder under which the private copy is made (default: the OS temp folder). */
  tempRoot?: string
  /** Called with bytes copied so far, for progress bars on large files. */
  onProgress?: (done: number, total: number) => void
  signal?: AbortSignal
}

const live = new Set<string>()
const COPY_PREFIX = 'bijotel-evidence-'

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Private copies are removed when the process exits; a process that was killed cannot do that, so
 * copies whose owner (the pid in the folder name) is gone are removed by the next run.
 */
async function sweepStaleCopies(root: string): Promise<void> {
  let names: string[]
  try {
    names = await fsp.readdir(root)
  } catch {
    return
  }
  for (const name of names) {
    const m = /^bijotel-evidence-(\d+)-/.exec(name)
    if (!m || Number(m[1]) === process.pid || pidAlive(Number(m[1]))) continue
    await fsp.rm(join(root, name), { recursive: true, force: true }).catch(() => undefined)
  }
}
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const dir of live) rmSync(dir, { recursive: true, force: true })
  })
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fsp.stat(path)
  } catch {
    return null
  }
}

function toEvidenceFile(path: string, st: Stats, sha256: string): EvidenceFile {
  return { path, size: st.size, sha256, mtime: new Date(st.mtimeMs).toISOString() }
}

/** Stream `src` into `dst` (or only hash it when `dst` is null), returning the SHA-256 of what was read. */
async function copyHashing(
  src: string,
  dst: string | null,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  const input = await fsp.open(src, fsc.O_RDONLY)
  const output = dst ? await fsp.open(dst, 'wx', 0o600) : null
  try {
    const buf = readBuffer(CHUNK)
    let total = 0
    for (;;) {
      if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
      const { bytesRead } = await input.read(buf, 0, CHUNK, total)
      if (bytesRead === 0) break
      const chunk = buf.subarray(0, bytesRead)
      hash.update(chunk)
      if (output) await output.write(chunk, 0, bytesRead, total)
      total += bytesRead
      progress(bytesRead)
    }
    return { sha256: hash.digest('hex'), bytes: total }
  } finally {
    await input.close()
    await output?.close()
  }
}

async function copyChunked(src: string, dst: string, signal?: AbortSignal): Promise<void> {
  const input = await fsp.open(src, fsc.O_RDONLY)
  const output = await fsp.open(dst, 'wx', 0o600)
  try {
    const buf = readBuffer(8 * 1024 * 1024)
    let pos = 0
    for (;;) {
      if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
      const { bytesRead } = await input.read(buf, 0, buf.length, pos)
      if (bytesRead === 0) break
      await output.write(buf, 0, bytesRead, pos)
      pos += bytesRead
    }
  } finally {
    await input.close()
    await output.close()
  }
}

export async function hashFile(path: string): Promise<string> {
  return (await copyHashing(path, null, () => {})).sha256
}

/** Files above this are hashed on a worker thread, so two files hash in parallel. */
const WORKER_HASH_MIN = 16 * 1024 * 1024

const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { createHash } = require('node:crypto')
const fd = fs.openSync(workerData.path, 'r')
const h = createHash('sha256')
// Skewed off a page boundary, as readBuffer() does (see read-buffer.ts).
const buf = Buffer.allocUnsafeSlow(8 * 1024 * 1024 + ${READ_SKEW}).subarray(${READ_SKEW})
let pos = 0
let n
while ((n = fs.readSync(fd, buf, 0, buf.length, pos)) > 0) {
  h.update(buf.subarray(0, n))
  pos += n
  parentPort.postMessage({ progress: n })
}
fs.closeSync(fd)
parentPort.postMessage({ sha256: h.digest('hex'), bytes: pos })
`

/** SHA-256 of a file, on a worker thread when it is large; cancellable. */
export function hashFileParallel(
  path: string,
  size: number,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  if (size < WORKER_HASH_MIN) return copyHashing(path, null, progress, signal)
  return new Promise((resolvePromise, reject) => {
    const w = new Worker(HASH_WORKER, { eval: true, workerData: { path } })
    const onAbort = (): void => {
      void w.terminate()
      reject(new AuditError('cancelled', 'cancelled while hashing the evidence'))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    w.on('message', (m: { progress?: number; sha256?: string; bytes?: number }) => {
      if (m.progress !== undefined) progress(m.progress)
      else if (m.sha256 !== undefined) {
        signal?.removeEventListener('abort', onAbort)
        resolvePromise({ sha256: m.sha256, bytes: m.bytes ?? 0 })
      }
    })
    w.on('error', (e) => reject(new AuditError('io', `cannot read ${path}: ${oneLine(e)}`)))
    w.on('exit', (code) => {
      if (code !== 0) reject(new AuditError('io', `hashing ${path} stopped (exit ${code})`))
    })
  })
}

/**
 * Where the private copy goes: BIJOTEL_TMPDIR if set; else, on Linux, the RAM-backed /dev/shm when
 * it has room and the copy takes under a quarter of the memory (copying 2 GB there takes ~1 s
 * against ~9 s onto a disk, and nothing is written back); else the OS temp folder.
 */
export async function chooseTempRoot(bytes: number): Promise<string> {
  const forced = process.env['BIJOTEL_TMPDIR']
  if (forced) return forced
  if (process.platform === 'linux') {
    try {
      const st = await fsp.statfs('/dev/shm')
      await fsp.access('/dev/shm', fsc.W_OK)
      if (st.bavail * st.bsize > bytes * 1.1 + 64 * 1024 * 1024 && bytes < totalmem() / 4) return '/dev/shm'
    } catch {
      // no usable /dev/shm
    }
  }
  return tmpdir()
}

/** Make the verified private copy of a chain.db (and its -wal). Throws AuditError, never writes beside `path`. */
export async function takeSnapshot(path: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const abs = resolve(path)
  const st = await statOrNull(abs)
  if (!st) throw new AuditError('db_missing', `DB not found: ${path}`)
  if (!st.isFile()) throw new AuditError('not_a_file', `not a regular file: ${path}`)
  if (st.size === 0) throw new AuditError('empty_file', `not a chain: ${path} is empty (0 bytes)`)

  const walPath = `${abs}-wal`
  const walSt = await statOrNull(walPath)
  const sideFiles: { path: string; st: Stats }[] = []
  for (const suffix of ['-shm', '-journal']) {
    const p = `${abs}${suffix}`
    const s = await statOrNull(p)
    if (s?.isFile()) sideFiles.push({ path: p, st: s })
  }
  const useWal = walSt !== null && walSt.isFile() && walSt.size > 0
  const total = st.size + (useWal ? walSt.size : 0)

  const root = opts.tempRoot ?? (await chooseTempRoot(total))
  try {
    const fsStat = await fsp.statfs(root)
    const free = fsStat.bavail * fsStat.bsize
    if (free < total * 1.05 + 16 * 1024 * 1024) {
      throw new AuditError(
        'too_large',
        `not enough free space in ${root} for a private copy of ${total} bytes (${free} free); set BIJOTEL_TMPDIR to a larger folder`,
      )
    }
  } catch (e) {
    if (e instanceof AuditError) throw e
  }

  await sweepStaleCopies(root)
  const dir = await fsp.mkdtemp(join(root, `${COPY_PREFIX}${process.pid}-`))
  live.add(dir)
  installExitHook()
  const dispose = (): void => {
    live.delete(dir)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    let done = 0
    const progress = (n: number): void => {
      done += n
      opts.onProgress?.(done, total)
    }
    const name = basename(abs)
    const copyPath = join(dir, name)
    // Plain chunked copy (libuv's copyfile is ~8× slower into tmpfs here); then original and copy
    // are hashed side by side.
    await copyChunked(abs, copyPath, opts.signal)
    if (useWal) await copyChunked(walPath, `${copyPath}-wal`, opts.signal)
    if (opts.signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
    const none = (): void => {}
    const [db, dbCopy, wal, walCopy] = await Promise.all([
      hashFileParallel(abs, st.size, progress, opts.signal),
      hashFileParallel(copyPath, st.size, none, opts.signal),
      useWal ? hashFileParallel(walPath, walSt.size, progress, opts.signal) : null,
      useWal ? hashFileParallel(`${copyPath}-wal`, walSt.size, none, opts.signal) : null,
    ])

    // The evidence must not have moved under us: a writer still appending would make the copy a
    // mixture of two states.
    const after = await statOrNull(abs)
    const walAfter = useWal ? await statOrNull(walPath) : null
    const unchanged =
      after !== null &&
      after.size === st.size &&
      after.mtimeMs === st.mtimeMs &&
      db.bytes === st.size &&
      (!useWal || (walAfter !== null && walAfter.size === walSt.size && walAfter.mtimeMs === walSt.mtimeMs))
    if (!unchanged || dbCopy.sha256 !== db.sha256 || (wal && walCopy && walCopy.sha256 !== wal.sha256)) {
      throw new AuditError(
        'evidence_changed',
        `evidence changed while it was being read (${path}); stop the writer or copy the file first`,
      )
    }

    const side: EvidenceFile[] = []
    for (const s of sideFiles) side.push(toEvidenceFile(s.path, s.st, await hashFile(s.path)))
    const evidence: Evidence = {
      db: toEvidenceFile(abs, st, db.sha256),
      wal: wal && walSt ? toEvidenceFile(walPath, walSt, wal.sha256) : null,
      side_files: side,
      method:
        'copied into a private temporary folder; original and copy hashed and compared, original size and mtime re-checked, then SQLite opened only the copy, read-only',
      unchanged_after_copy: true,
    }
    return { dbPath: copyPath, evidence, dispose }
  } catch (e) {
    dispose()
    if (e instanceof AuditError) throw e
    const code = (e as { code?: string }).code
    if (code === 'EACCES' || code === 'EPERM')
      throw new AuditError('io', `cannot read ${path}: permission denied`)
    throw new AuditError('io', `cannot read ${path}: ${oneLine(e)}`)
  }
}
