// The one way to open a file whose path a client named (issue 34): the chain and its side files
// (through src/main/chain/evidence-files.ts), a prior or a report, a signing or public key, a key
// file, a replay output. The path is resolved once by the kernel (realpath(3): every symbolic link
// followed and `..` taken after it, as open(2) would — never lexically); the real path is opened
// once with O_NOFOLLOW (a link put there since is refused) and O_NONBLOCK (a FIFO put there does
// not block the open); the DESCRIPTOR is then checked: a regular file (fstat: no FIFO, device,
// directory or socket), still the one its real path names, that real path inside the policy, its
// size under the cap of its kind. The bytes are read only through that descriptor.
//
// Messages name the path as the client gave it, never what a path outside the policy resolves to
// nor whether it exists: under a policy "absent" and "outside" are one answer.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs'
import type { Stats } from 'node:fs'
import { basename, dirname, isAbsolute, join, sep } from 'node:path'
import { AuditError, type AuditErrorCode } from './errors'
import { kindOf } from './file-kind'
import { noteInput } from './inputs'

export { kindOf } from './file-kind'

/** Which real paths may be opened (none given: any). */
export type OpenPolicy = (realPath: string) => boolean

export const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

export function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code
}

/** How a refusal is worded for one kind of file; evidence-files words the chain's its own way. */
export interface OpenWords {
  /** The file was swapped (or went away) between the check and the open. */
  changed: () => AuditError
  /** The real path (before or after the open) is outside the policy. */
  outside: (real: string) => AuditError
  /** Not a regular file (what it is instead). */
  notFile: (kind: string) => AuditError
  /** Any other error of the open (permission…). */
  io: (e: unknown) => AuditError
}

export interface VerifiedFile {
  fd: number
  /** fstat of the descriptor at open. */
  stat: Stats
}

/**
 * Opens the already resolved `real` once and checks the descriptor: a regular file whose real path
 * (taken again after the open) passes the policy and names the very device and inode opened. The
 * caller owns the descriptor returned.
 */
export function openVerified(real: string, policy: OpenPolicy | undefined, words: OpenWords): VerifiedFile {
  if (policy && !policy(real)) throw words.outside(real)
  let seen: Stats
  try {
    seen = lstatSync(real)
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw words.changed()
    throw words.io(e)
  }
  if (!seen.isFile()) throw words.notFile(kindOf(seen))
  let fd: number
  try {
    fd = openSync(real, OPEN_FLAGS)
  } catch (e) {
    // ELOOP: a symbolic link put where the check saw the file (O_NOFOLLOW); ENOENT: it went away;
    // ENXIO: a FIFO without a writer put there (O_NONBLOCK on a write end; never blocks a read).
    const code = errnoOf(e)
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENXIO') throw words.changed()
    throw words.io(e)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw words.changed()
    // After the open, the real path is taken again and must still pass and name what was opened: a
    // directory above swapped for a link meanwhile gives another path or another inode.
    let again: string
    let named: Stats
    try {
      again = realpathSync.native(real)
      named = statSync(again)
    } catch {
      throw words.changed()
    }
    // Identity first: `real` passed the policy before the open, so a real path that differs now
    // (outside the roots or not) means the file was swapped — one answer, "changed", whether what
    // it was swapped for exists (a dangling link fails the realpath above) or leads outside.
    if (
      again !== real ||
      named.dev !== st.dev ||
      named.ino !== st.ino ||
      named.dev !== seen.dev ||
      named.ino !== seen.ino
    )
      throw words.changed()
    if (policy && !policy(again)) throw words.outside(again)
    return { fd, stat: st }
  } catch (e) {
    closeSync(fd)
    throw e
  }
}

/** Reads `len` bytes at `pos` through `fd` (fewer only at the end of the file). */
export function readAt(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number {
  let got = 0
  while (got < len) {
    const n = readSync(fd, buf, off + got, len - got, pos + got)
    if (n === 0) break
    got += n
  }
  return got
}

export interface ClientFileOptions {
  /** How the file is named in messages, e.g. `prior`, `--sign-key`, `--output-file`. */
  label: string
  /** Largest size accepted, in bytes (fstat of the descriptor; and again while reading). */
  maxBytes: number
  /** The open roots (web mode); none: any path this process can read. */
  policy?: OpenPolicy
  /** Error code for a missing file (default `bad_argument`); under a policy it is never told apart. */
  missingCode?: AuditErrorCode
  /** Error code for every other refusal (default `bad_argument`). */
  code?: AuditErrorCode
  /** The refusal of a file over `maxBytes` (default: one line in `code`). */
  tooLarge?: (size: number) => AuditError
}

function wordsFor(path: string, o: ClientFileOptions): OpenWords {
  const code = o.code ?? 'bad_argument'
  const shown = path.slice(0, 4096)
  return {
    changed: () =>
      new AuditError(
        'evidence_changed',
        `${o.label} ${shown} was replaced while it was being opened; stop whatever is changing the folder and try again`,
      ),
    outside: () => notAllowed(path, o),
    notFile: (kind) => new AuditError(code, `${o.label} ${shown} is ${kind}, not a regular file`),
    io: (e) =>
      errnoOf(e) === 'EACCES' || errnoOf(e) === 'EPERM'
        ? new AuditError(code, `cannot read ${o.label} ${shown}: permission denied`)
        : new AuditError(code, `cannot read ${o.label} ${shown} (${errnoOf(e) ?? 'error'})`),
  }
}

function notAllowed(path: string, o: ClientFileOptions): AuditError {
  return new AuditError(
    'bad_argument',
    `reading ${o.label} ${path.slice(0, 4096)} is not allowed here: not found, or outside the folders this server may read (ask whoever started it to add the folder)`,
  )
}

/**
 * Whether `path`, looked up by the kernel, ends at nothing inside `policy`: the deepest folder of it
 * that resolves is opened, its real path read from the descriptor (/proc/self/fd), and the next name
 * looked up IN that folder (not followed). True only when that folder is inside the policy and the
 * name is absent there — so "not found" is said of nothing outside the policy: not of a missing
 * name under a link that leads out (`root/link-out/x`, `root/link-out/../x`), not of a dangling
 * link (whose target's existence the answer would tell), not while a folder is swapped for a link
 * between two looks. Anywhere /proc/self/fd is not there, false (the one "not allowed" answer).
 */
export function absentInside(path: string, policy: OpenPolicy): boolean {
  // The path's own text, never normalised: `..` must be taken by the kernel, after any link.
  let child = isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`
  for (let depth = 0; depth < 4096; depth++) {
    const folder = dirname(child)
    if (folder === child) return false
    let fd: number
    try {
      fd = openSync(folder, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
    } catch (e) {
      const code = errnoOf(e)
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return false
      child = folder
      continue
    }
    try {
      const real = readlinkSync(`/proc/self/fd/${fd}`)
      if (!policy(real.endsWith(sep) ? real : real + sep)) return false
      try {
        lstatSync(`/proc/self/fd/${fd}/${basename(child)}`)
        return false
      } catch (e) {
        return errnoOf(e) === 'ENOENT'
      }
    } catch {
      return false
    } finally {
      closeSync(fd)
    }
  }
  return false
}

/**
 * Where a file written at `path` (an output a client names) lands, as the kernel takes the name:
 * the real path of the deepest folder of it that exists, then the rest. `..` after a link is taken
 * from the link's target, never lexically as path.resolve would: `out/link/../ev/chain.db-wal`
 * is the evidence's -wal when `link` leads beside `ev`, and a check of the lexical path let a
 * report be renamed onto it. The one name both the check and the write use.
 */
export function writeTarget(path: string): string {
  const abs = isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`
  try {
    return realpathSync.native(abs)
  } catch {
    // Not there (yet): its folder, resolved the same way, and the last name.
  }
  const folder = dirname(abs)
  if (folder === abs) return abs
  return join(writeTarget(folder), basename(abs))
}

/**
 * The real path of `path` as the kernel resolves it. Under a policy, a path that does not resolve
 * is told "not found" only when it ends at nothing inside the policy (absentInside); otherwise one
 * answer for absent and outside, so no client learns what exists elsewhere.
 */
export function resolveClientPath(path: string, o: ClientFileOptions): string {
  if (path === '' || path.includes('\0'))
    throw new AuditError(o.code ?? 'bad_argument', `${o.label}: not a path`)
  try {
    return realpathSync.native(path)
  } catch (e) {
    const code = errnoOf(e)
    if (o.policy && !((code === 'ENOENT' || code === 'ENOTDIR') && absentInside(path, o.policy)))
      throw notAllowed(path, o)
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new AuditError(o.missingCode ?? 'bad_argument', `${o.label} not found: ${path.slice(0, 4096)}`)
    if (code === 'ELOOP')
      throw new AuditError(
        o.code ?? 'bad_argument',
        `${o.label} ${path.slice(0, 4096)} is a loop of symbolic links`,
      )
    throw wordsFor(path, o).io(e)
  }
}

/**
 * The descriptor of the file a client named at `path`, opened and checked as above (a regular file
 * under the size cap), for a caller that streams it (it owns the descriptor and closes it). Noted
 * as an input (base/inputs.ts): no output of this run is written over it.
 */
export function openClientFile(path: string, o: ClientFileOptions): VerifiedFile & { real: string } {
  const real = resolveClientPath(path, o)
  const { fd, stat } = openVerified(real, o.policy, wordsFor(path, o))
  if (stat.size > o.maxBytes) {
    closeSync(fd)
    throw (
      o.tooLarge?.(stat.size) ??
      new AuditError(
        o.code ?? 'bad_argument',
        `${o.label} ${path.slice(0, 4096)} is ${stat.size} bytes, over the ${o.maxBytes}-byte limit`,
      )
    )
  }
  noteInput(real, stat, `${o.label} ${real}`)
  return { fd, stat, real }
}

/**
 * The bytes of the file a client named at `path`, read through the one descriptor opened and
 * checked as above. A file that grows past its size at open while read is refused (it changed).
 */
export function readClientFile(path: string, o: ClientFileOptions): Buffer {
  const words = wordsFor(path, o)
  const { fd, stat } = openClientFile(path, o)
  try {
    const buf = Buffer.allocUnsafe(stat.size)
    let got: number
    try {
      got = readAt(fd, buf, 0, stat.size, 0)
      if (readSync(fd, Buffer.alloc(1), 0, 1, stat.size) !== 0) throw words.changed()
    } catch (e) {
      if (e instanceof AuditError) throw e
      throw words.io(e)
    }
    if (got !== stat.size) throw words.changed()
    return buf
  } finally {
    closeSync(fd)
  }
}

/** How long a named FIFO with no writer yet is waited on before it reads as empty. */
const WRITER_GRACE_MS = 500

/** Sleeps the thread `ms` milliseconds (a key file is read before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * The bytes of a file the auditor names for their own secrets (`--secret-file`, `--api-key-file`),
 * which may be a pipe as well as a file: `<(pass show key)` is a link into /proc to a pipe that no
 * real path names, or a named FIFO. Anything but a pipe is read by readClientFile, with its checks
 * (a regular file under `maxBytes`; a device or a folder is refused). A pipe is opened once through
 * its name, O_NONBLOCK (the open of a FIFO without a writer would block until one came), its
 * descriptor must be a pipe, and it is read as its bytes come, at most `maxBytes` + 1 (the caller
 * refuses more): a shell's pipe has its writer; a named FIFO that no process has open for writing
 * reads as end of file at once, so one read nothing from yet is given WRITER_GRACE_MS for a writer
 * to appear (a writer blocked in its own open gets in only once this side has opened), then refused.
 */
export function readClientFileOrPipe(path: string, o: ClientFileOptions): Buffer {
  let fifo = false
  try {
    fifo = statSync(path).isFIFO()
  } catch {
    // Not there or unreadable: readClientFile says which, in its words.
  }
  if (!fifo) return readClientFile(path, o)
  const words = wordsFor(path, o)
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  } catch (e) {
    throw errnoOf(e) === 'ENOENT' ? words.changed() : words.io(e)
  }
  try {
    if (!fstatSync(fd).isFIFO()) throw words.changed()
    const buf = Buffer.alloc(o.maxBytes + 1)
    const graceEnd = Date.now() + WRITER_GRACE_MS
    let writerSeen = false
    let n = 0
    while (n < buf.length) {
      let got: number
      try {
        got = readSync(fd, buf, n, buf.length - n, null)
      } catch (e) {
        if (errnoOf(e) !== 'EAGAIN') throw words.io(e)
        writerSeen = true // a writer holds the pipe open and has not written yet
        pause(5)
        continue
      }
      if (got === 0) {
        if (n === 0 && !writerSeen && Date.now() < graceEnd) {
          pause(5)
          continue
        }
        break
      }
      writerSeen = true
      n += got
    }
    if (n === 0)
      throw new AuditError(
        o.code ?? 'bad_argument',
        `${o.label} ${path.slice(0, 4096)}: a FIFO that no process writes to (nothing to read)`,
      )
    return buf.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}
