// Forensic reading without touching the evidence.
//
// SQLite cannot be trusted to leave a file alone: even a read-only connection creates `-wal`/`-shm`
// beside a WAL-mode database, fails in a read-only folder, and better-sqlite3 takes no
// `immutable=1` URI. So the chain is never opened where it lies. The open step
// (./evidence-files.ts) opens the chain and its side files once; through those descriptors the
// chain and every side file SQLite would apply — its `-wal` (un-checkpointed rows are part of the
// chain) and its `-journal` (a hot journal SQLite rolls back before reading) — are copied into a
// private temporary folder, under the names SQLite looks for beside the copy. Each file is read
// once: its SHA-256 is taken of the very bytes written to the copy (./copy-hashed.ts says why that
// proves the copy equal; without the addon, the copy and the original are hashed and must agree),
// and the originals' size, mtime and ctime must not have moved — so every later answer is about
// exactly the bytes recorded in the evidence block. SQLite then opens the copy as the writer
// would (./reader.ts: read-write once, so it recovers the WAL or rolls the journal back), where its
// side files do no harm.
import { createHash } from 'node:crypto'
import {
  closeSync,
  constants as fsc,
  openSync,
  promises as fsp,
  read as readCb,
  rmSync,
  type Stats,
} from 'node:fs'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import { tmpdir, totalmem } from 'node:os'
import { basename, join } from 'node:path'
import type { Evidence, EvidenceFile } from '../../shared/chain-types'
import { reserveCopySpace } from './copy-budget'
import { AuditError, oneLine } from '../base/errors'
import {
  openEvidence,
  readAt,
  unchangedFiles,
  type EvidenceFiles,
  type OpenedFile,
  type OpenPolicy,
} from './evidence-files'
import { READ_SKEW, readBuffer } from './read-buffer'
import { nativeFileHash, type FileTap } from './addon/file-hash'
import { copyHashed } from './copy-hashed'
import { SQLITE_MAGIC } from './sqlite/header'
import { refuseWalOfOtherPageSize } from './wal-page-size'

const CHUNK = 4 * 1024 * 1024

export interface Snapshot {
  /** Path of the private copy SQLite may open. */
  readonly dbPath: string
  readonly evidence: Evidence
  /** A `-wal` or `-journal` was copied beside it: SQLite must open it read-write once to apply it. */
  readonly recover: boolean
  /**
   * The open step's descriptors of the evidence, held until dispose: what reads the evidence itself
   * later (recovery, whose page versions the copy no longer has) reads these, never a second open
   * by name (issue 29: checked once, opened once).
   */
  readonly files: EvidenceFiles
  dispose(): void
}

export interface SnapshotOptions {
  /** Folder under which the private copy is made (default: the OS temp folder). */
  tempRoot?: string
  /** Called with bytes copied so far, for progress bars on large files. */
  onProgress?: (done: number, total: number) => void
  signal?: AbortSignal
  /** Which real paths may be opened (the server's --open-root): every file of the chain must pass. */
  policy?: OpenPolicy
  /**
   * The copy is for SQLite (a chain's reader): a file SQLite would refuse from its header alone is
   * refused before a byte is copied (below).
   */
  sqliteOnly?: boolean
  /**
   * Called once the files are opened and checked and there is room for the copy, before a byte is
   * copied, with the bytes to copy (the CLI's verify starts its row workers then: their start-up
   * overlaps the copy, which holds one core on the evidence hash and leaves the other mostly idle).
   */
  onCopyStart?: (bytes: number) => void
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

const readFd = promisify(readCb)

function toEvidenceFile(
  path: string,
  st: Stats,
  sha256: string,
  extra: Partial<EvidenceFile> = {},
): EvidenceFile {
  return { path, size: st.size, sha256, mtime: new Date(st.mtimeMs).toISOString(), ...extra }
}

/** Stream a descriptor (or a file of ours, by path) into `dst` or only hash it: SHA-256 and bytes read. */
async function copyHashing(
  src: number | string,
  dst: string | null,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  const own = typeof src === 'string' ? await fsp.open(src, fsc.O_RDONLY) : null
  const fd = own ? own.fd : (src as number)
  const output = dst ? await fsp.open(dst, 'wx', 0o600) : null
  try {
    const buf = readBuffer(CHUNK)
    let total = 0
    for (;;) {
      if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
      const { bytesRead } = await readFd(fd, buf, 0, CHUNK, total)
      if (bytesRead === 0) break
      const chunk = buf.subarray(0, bytesRead)
      hash.update(chunk)
      if (output) await output.write(chunk, 0, bytesRead, total)
      total += bytesRead
      progress(bytesRead)
    }
    return { sha256: hash.digest('hex'), bytes: total }
  } finally {
    await own?.close()
    await output?.close()
  }
}

/**
 * Copy what the descriptor reads into a new private file `dst` (without the addon: plain chunked
 * reads and writes — libuv's copyfile is ~8× slower into tmpfs here).
 */
async function copyChunked(fd: number, dst: string, signal?: AbortSignal): Promise<void> {
  const output = await fsp.open(dst, 'wx', 0o600)
  try {
    const buf = readBuffer(8 * 1024 * 1024)
    let pos = 0
    for (;;) {
      if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
      const { bytesRead } = await readFd(fd, buf, 0, buf.length, pos)
      if (bytesRead === 0) break
      await output.write(buf, 0, bytesRead, pos)
      pos += bytesRead
    }
  } finally {
    await output.close()
  }
}

export async function hashFile(path: string): Promise<string> {
  return (await copyHashing(path, null, () => {})).sha256
}

/** Files above this are hashed on a worker thread, so two files hash in parallel. */
const WORKER_HASH_MIN = 16 * 1024 * 1024

// A worker reads through the descriptor it is given (threads share descriptors), or opens a file
// of ours (the private copy) by path.
const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { createHash } = require('node:crypto')
const own = workerData.fd === undefined
const fd = own ? fs.openSync(workerData.path, 'r') : workerData.fd
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
if (own) fs.closeSync(fd)
parentPort.postMessage({ sha256: h.digest('hex'), bytes: pos })
`

/**
 * SHA-256 of an evidence descriptor or a private file, cancellable: through the addon where it can
 * (./addon/file-hash.ts: started at once, off this thread), else on a worker thread when large.
 */
export function hashFileParallel(
  src: number | string,
  size: number,
  progress: (n: number) => void,
  signal?: AbortSignal,
  tap?: FileTap,
): Promise<{ sha256: string; bytes: number }> {
  const what = typeof src === 'string' ? src : 'the evidence'
  // Only the addon's reads of the tap's own descriptor are shared: otherwise the tap reads the file.
  const shared = typeof src === 'number' && tap?.fd === src ? tap : undefined
  if (tap && !shared) tap.end(0)
  if (typeof src === 'number') {
    const native = nativeFileHash(src, what, progress, signal, shared)
    if (native !== null) return native
  }
  shared?.end(0)
  if (typeof src !== 'number' && size >= WORKER_HASH_MIN) {
    const native = hashOwnFileNatively(src, progress, signal)
    if (native !== null) return native
  }
  if (size < WORKER_HASH_MIN) return copyHashing(src, null, progress, signal)
  return new Promise((resolvePromise, reject) => {
    const data = typeof src === 'string' ? { path: src } : { fd: src }
    const w = new Worker(HASH_WORKER, { eval: true, workerData: data })
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
    w.on('error', (e) => reject(new AuditError('io', `cannot read ${what}: ${oneLine(e)}`)))
    w.on('exit', (code) => {
      if (code !== 0) reject(new AuditError('io', `hashing ${what} stopped (exit ${code})`))
    })
  })
}

/** A file of ours (the private copy) hashed through the addon, or null where it cannot. */
function hashOwnFileNatively(
  path: string,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number }> | null {
  let fd: number
  try {
    fd = openSync(path, fsc.O_RDONLY)
  } catch {
    return null // the worker path opens it and says what is wrong
  }
  const hashing = nativeFileHash(fd, path, progress, signal)
  if (hashing === null) {
    closeSync(fd)
    return null
  }
  // Closed only when no read of the thread pool can still use the descriptor.
  return hashing.finally(() => closeSync(fd))
}

const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])

/**
 * The super-journal a journal names (pager.c `readSuperJournal`), or null. A hot journal naming one
 * is rolled back only if that file exists (`pager_playback`): on the writer's machine, not here.
 * The checksum sums the name's bytes as C `char`s, signed on some machines and unsigned on others:
 * a name valid either way counts.
 */
function superJournal(j: OpenedFile): string | null {
  const size = j.stat.size
  if (size < 16) return null
  const tail = Buffer.alloc(16)
  if (readAt(j.fd, tail, 0, 16, size - 16) < 16 || !tail.subarray(8).equals(JOURNAL_MAGIC)) return null
  const len = tail.readUInt32BE(0)
  // mxPathname + 1 of the unix VFS (MAX_PATHNAME 512).
  if (len === 0 || len >= 513 || len > size - 16) return null
  const name = Buffer.alloc(len)
  if (readAt(j.fd, name, 0, len, size - 16 - len) < len || name[0] === 0) return null
  let unsigned = tail.readUInt32BE(4)
  let signed = unsigned
  for (const b of name) {
    unsigned = (unsigned - b) >>> 0
    signed = (signed - (b >= 0x80 ? b - 256 : b)) >>> 0
  }
  return unsigned === 0 || signed === 0 ? name.toString('latin1').split('\0')[0]! : null
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

/**
 * One file of the evidence copied to `dst`: in one read where the addon hashes (./copy-hashed.ts),
 * else copied, then the original and the copy hashed side by side (`agree`: the two digests match).
 */
async function copyOne(
  f: OpenedFile,
  dst: string,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number; agree: boolean; oneRead: boolean }> {
  const once = copyHashed(f.fd, dst, progress, signal)
  if (once !== null) return { ...(await once), agree: true, oneRead: true }
  await copyChunked(f.fd, dst, signal)
  if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while copying the evidence')
  const [original, copy] = await Promise.all([
    hashFileParallel(f.fd, f.stat.size, progress, signal),
    hashFileParallel(dst, f.stat.size, () => {}, signal),
  ])
  return { ...original, agree: original.sha256 === copy.sha256, oneRead: false }
}

/** Make the verified private copy of a chain.db and its side files. Throws AuditError, never writes beside `path`. */
export async function takeSnapshot(path: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const files = openEvidence(path, opts.policy ? { policy: opts.policy } : {})
  let snap: Omit<Snapshot, 'files'>
  try {
    snap = await snapshotOf(path, files, opts)
  } catch (e) {
    files.close()
    throw e
  }
  const removeCopy = snap.dispose
  return {
    ...snap,
    files,
    dispose: () => {
      removeCopy()
      files.close()
    },
  }
}

async function snapshotOf(
  path: string,
  files: ReturnType<typeof openEvidence>,
  opts: SnapshotOptions,
): Promise<Omit<Snapshot, 'files'>> {
  const st = files.db.stat
  if (st.size === 0) throw new AuditError('empty_file', `not a chain: ${path} is empty (0 bytes)`)
  // The side files SQLite would apply: one that exists to unixAccess (os_unix.c: a regular file
  // of 0 bytes does not). SQLite itself then decides on the copy whether the journal is hot.
  const wal = files.wal && files.wal.stat.size > 0 ? files.wal : null
  const journal = files.journal && files.journal.stat.size > 0 ? files.journal : null
  const first = Buffer.alloc(1)
  const hot = journal !== null && readAt(journal.fd, first, 0, 1, 0) === 1 && first[0] !== 0
  if (hot) {
    const name = superJournal(journal)
    if (name !== null)
      throw new AuditError(
        'corrupt',
        `${journal.name} is the hot journal of a multi-file transaction (super-journal ${name}): SQLite rolls it back only if that file exists on the machine that opens it, so what the chain holds cannot be settled here`,
      )
  }
  // With no WAL and no hot journal nothing can rewrite page 1, so a file that does not begin with
  // SQLite's magic is refused from its first 16 bytes, as SQLite would refuse the copy — not after
  // copying all of it: a 50 GB file of zeros put where a chain was named would fill the disk and
  // hold a long-work slot for minutes before the same one line.
  if (opts.sqliteOnly && wal === null && !hot) {
    const magic = Buffer.alloc(SQLITE_MAGIC.length)
    if (readAt(files.db.fd, magic, 0, magic.length, 0) < magic.length || !magic.equals(SQLITE_MAGIC))
      throw new AuditError('not_sqlite', `not a SQLite database: ${path} (no SQLite header)`)
  }
  refuseWalOfOtherPageSize(files.db, wal)
  const copied = [files.db, wal, journal].filter((f): f is OpenedFile => f !== null)
  const total = copied.reduce((n, f) => n + f.stat.size, 0)

  const root = opts.tempRoot ?? (await chooseTempRoot(total))
  // Room counted with the copies still being written (./copy-budget.ts); a web client's at most half.
  const release = await reserveCopySpace(root, total, opts.policy !== undefined)
  opts.onCopyStart?.(total)
  let dir: string
  try {
    await sweepStaleCopies(root)
    dir = await fsp.mkdtemp(join(root, `${COPY_PREFIX}${process.pid}-`))
  } catch (e) {
    release()
    throw e
  }
  live.add(dir)
  installExitHook()
  const dispose = (): void => {
    release()
    live.delete(dir)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    let done = 0
    const progress = (n: number): void => {
      done += n
      opts.onProgress?.(done, total)
    }
    const copyPath = join(dir, basename(files.db.name))
    // The names SQLite gives the copy's side files: the copy's path plus the same suffix.
    const copyOf = (f: OpenedFile): string => copyPath + f.name.slice(files.db.name.length)
    // Each file read once: hashed and written to the copy from the same bytes (./copy-hashed.ts);
    // without the addon, copied, then original and copy hashed side by side and compared.
    const hashes: string[] = []
    let agree = true
    let oneRead = true
    for (const f of copied) {
      const h = await copyOne(f, copyOf(f), progress, opts.signal)
      agree &&= h.agree && h.bytes === f.stat.size
      oneRead &&= h.oneRead
      hashes.push(h.sha256)
    }
    release()
    // The evidence must not have moved under us: a writer still appending would make the copy a
    // mixture of two states.
    if (!agree || !unchangedFiles(files, true)) {
      throw new AuditError(
        'evidence_changed',
        `evidence changed while it was being read (${path}); stop the writer or copy the file first`,
      )
    }
    const sha = (f: OpenedFile): string => hashes[copied.indexOf(f)]!
    const link = (f: OpenedFile): Partial<EvidenceFile> => (f.real !== f.name ? { link_target: f.real } : {})
    const side: EvidenceFile[] = []
    if (journal)
      side.push(toEvidenceFile(journal.name, journal.stat, sha(journal), { ...link(journal), applied: hot }))
    for (const f of [files.journal === journal ? null : files.journal, files.shm]) {
      // Recorded only (an empty journal, the -shm, which the first connection discards):
      // hashed through its descriptor all the same.
      if (f)
        side.push(
          toEvidenceFile(f.name, f.stat, (await copyHashing(f.fd, null, () => {})).sha256, {
            ...link(f),
            applied: false,
          }),
        )
    }
    const given = files.given
    const evidence: Evidence = {
      db: toEvidenceFile(
        given,
        st,
        sha(files.db),
        given !== files.db.real ? { link_target: files.db.real } : {},
      ),
      wal: wal ? toEvidenceFile(wal.name, wal.stat, sha(wal), { ...link(wal), applied: true }) : null,
      side_files: side,
      method: `copied into a private temporary folder${hot ? ' with its hot journal' : ''}${wal ? ' with its -wal' : ''}; ${oneRead ? 'the original read once, hashed and written to the copy from the same bytes, its size, mtime and ctime re-checked' : 'original and copy hashed and compared, original size, mtime and ctime re-checked'}, then SQLite opened only the copy${wal || hot ? ', read-write once to apply the side files as the writer would, then read-only' : ', read-only'}`,
      unchanged_after_copy: true,
    }
    return {
      dbPath: copyPath,
      evidence,
      recover: wal !== null || journal !== null,
      dispose,
    }
  } catch (e) {
    dispose()
    if (e instanceof AuditError) throw e
    const code = (e as { code?: string }).code
    if (code === 'EACCES' || code === 'EPERM')
      throw new AuditError('io', `cannot read ${path}: permission denied`)
    throw new AuditError('io', `cannot read ${path}: ${oneLine(e)}`)
  }
}
