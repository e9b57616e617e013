// The open step, done once for every reader: the chain's path is resolved to its real path (every
// symbolic link followed, as SQLite's unix VFS does in `unixFullPathname`, os_unix.c) *before* the
// side-file names `-wal`, `-journal` and `-shm` are made from it, exactly as SQLite makes them;
// each file is then opened once, read-only, and its descriptor checked (a regular file, the same
// device and inode its real path names after the open). From then on the pager, the WAL index, the
// native walks, the evidence hashes and the private copy read through these descriptors only: a
// file swapped for another after the check is never read. An open policy (the server's
// `--open-root`) is a predicate on real paths applied to every one of these files.
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
import { dirname, resolve } from 'node:path'
import { AuditError } from '../base/errors'

/** Which real paths may be opened (none given: any). */
export type OpenPolicy = (realPath: string) => boolean

export interface OpenOptions {
  policy?: OpenPolicy
}

export type SideKind = 'wal' | 'journal' | 'shm'
export const SIDE_SUFFIX: Readonly<Record<SideKind, string>> = {
  wal: '-wal',
  journal: '-journal',
  shm: '-shm',
}

export interface OpenedFile {
  /** The name SQLite uses: the chain's real path, plus the suffix for a side file. */
  name: string
  /** Where the file really is: differs from `name` when `name` is a symbolic link. */
  real: string
  /**
   * For a side file: the link's target as stored (readlink) when `name` is a symbolic link. For the
   * chain: its real path when the path given is, or passes through, a link. Else null.
   */
  link: string | null
  /** Read-only descriptor: every read of this file goes through it. */
  fd: number
  /** fstat of the descriptor at open. */
  stat: Stats
}

export interface EvidenceFiles {
  /** The path as given, made absolute (it may be or pass through a symbolic link). */
  given: string
  db: OpenedFile
  /** Side files present beside the chain's real path (a zero-length `-wal` or `-journal` included). */
  wal: OpenedFile | null
  journal: OpenedFile | null
  shm: OpenedFile | null
  /** One more holder: the files stay open until every holder has called `close`. */
  hold(): void
  /** Gives up one hold; the last one closes the descriptors. Idempotent past zero. */
  close(): void
  readonly closed: boolean
}

/**
 * Test hook: called with the real path of each file between its check and its open, to swap the
 * file there deterministically (the race test). Never set outside tests.
 */
export const openRace: { between: ((realPath: string) => void) | null } = { between: null }

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  if (st.isSymbolicLink()) return 'a symbolic link'
  return 'not a regular file'
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code
}

function outside(what: string, name: string, real: string): AuditError {
  const where = real === name ? name : `${name} (a link to ${real})`
  return new AuditError('bad_argument', `${what} ${where} is outside the open roots: not opened`)
}

function changed(name: string): AuditError {
  return new AuditError(
    'evidence_changed',
    `${name} was replaced while it was being opened; stop whatever is changing the folder and try again`,
  )
}

/**
 * Opens `name` once and checks the descriptor: a regular file whose real path (taken again after
 * the open) passes the policy and names the very device and inode opened. `what` names the file in
 * messages ("chain", "side file").
 */
function openChecked(
  name: string,
  real: string,
  link: string | null,
  what: string,
  opts: OpenOptions,
): OpenedFile {
  if (opts.policy && !opts.policy(real)) throw outside(what, name, real)
  let seen: Stats
  try {
    seen = lstatSync(real)
  } catch (e) {
    if (errno(e) === 'ENOENT') throw changed(name)
    throw new AuditError('io', `cannot read ${name}: ${(e as Error).message}`)
  }
  if (!seen.isFile())
    throw new AuditError('not_a_file', `${what} ${name} is ${kindOf(seen)}, not a regular file`)
  openRace.between?.(real)
  let fd: number
  try {
    fd = openSync(real, OPEN_FLAGS)
  } catch (e) {
    // ELOOP: a symbolic link put where the check saw the file (O_NOFOLLOW); ENOENT: it went away.
    const code = errno(e)
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENXIO') throw changed(name)
    if (code === 'EACCES' || code === 'EPERM')
      throw new AuditError('io', `cannot read ${name}: permission denied`)
    throw new AuditError('io', `cannot read ${name}: ${(e as Error).message}`)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw changed(name)
    // After the open, the real path is taken again and must still pass and name what was opened: a
    // directory above swapped for a link meanwhile gives another path or another inode.
    let again: string
    let named: Stats
    try {
      again = realpathSync.native(real)
      named = statSync(again)
    } catch {
      throw changed(name)
    }
    if (opts.policy && !opts.policy(again)) throw outside(what, name, again)
    if (
      again !== real ||
      named.dev !== st.dev ||
      named.ino !== st.ino ||
      named.dev !== seen.dev ||
      named.ino !== seen.ino
    )
      throw changed(name)
    return { name, real, link, fd, stat: st }
  } catch (e) {
    closeSync(fd)
    throw e
  }
}

/** The link target of `name` as stored, or null when `name` is no symbolic link (or absent). */
function linkOf(name: string): string | null {
  try {
    return lstatSync(name).isSymbolicLink() ? readlinkSync(name) : null
  } catch {
    return null
  }
}

/**
 * A side file as SQLite finds it: absent (null) when nothing is there or a link leads nowhere
 * (SQLite's `unixAccess` then says it does not exist); else opened and checked like the chain.
 * Anything present that is not a regular file is refused: SQLite would fail on it or, for a FIFO,
 * wait forever.
 */
function openSide(dbReal: string, kind: SideKind, opts: OpenOptions): OpenedFile | null {
  const name = dbReal + SIDE_SUFFIX[kind]
  const link = linkOf(name)
  let real: string
  try {
    real = realpathSync.native(name)
  } catch (e) {
    const code = errno(e)
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // A link to nothing is not read; under a policy it must still not point outside it.
      if (link !== null && opts.policy && !opts.policy(resolve(dirname(name), link)))
        throw outside('side file', name, resolve(dirname(name), link))
      return null
    }
    if (code === 'ELOOP') throw new AuditError('not_a_file', `side file ${name} is a loop of symbolic links`)
    throw new AuditError('io', `cannot read ${name}: ${(e as Error).message}`)
  }
  return openChecked(name, real, link, 'side file', opts)
}

/**
 * The open step for the chain at `path`: the chain and its side files opened once, read-only, and
 * checked. Throws an AuditError naming the file: `db_missing`, `not_a_file`, `io`,
 * `evidence_changed` (swapped during the open), `bad_argument` (outside the policy).
 */
export function openEvidence(path: string, opts: OpenOptions = {}): EvidenceFiles {
  const given = resolve(path)
  let real: string
  try {
    real = realpathSync.native(given)
  } catch (e) {
    const code = errno(e)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new AuditError('db_missing', `DB not found: ${path}`)
    if (code === 'ELOOP')
      throw new AuditError('not_a_file', `not a regular file: ${path} is a loop of symbolic links`)
    if (code === 'EACCES' || code === 'EPERM')
      throw new AuditError('io', `cannot read ${path}: permission denied`)
    throw new AuditError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  const link = real === given ? null : real
  let db: OpenedFile
  try {
    db = openChecked(real, real, link, 'chain', opts)
  } catch (e) {
    if (e instanceof AuditError && e.code === 'not_a_file')
      throw new AuditError('not_a_file', `not a regular file: ${path}`)
    throw e
  }
  const opened: OpenedFile[] = [db]
  try {
    const side = (kind: SideKind): OpenedFile | null => {
      const f = openSide(real, kind, opts)
      if (f) opened.push(f)
      return f
    }
    const wal = side('wal')
    const journal = side('journal')
    const shm = side('shm')
    let holders = 1
    const files: EvidenceFiles = {
      given,
      db,
      wal,
      journal,
      shm,
      hold() {
        if (holders <= 0) throw new Error('evidence files already closed')
        holders++
      },
      close() {
        if (holders <= 0) return
        if (--holders > 0) return
        for (const f of opened) closeSync(f.fd)
      },
      get closed() {
        return holders <= 0
      },
    }
    return files
  } catch (e) {
    for (const f of opened) closeSync(f.fd)
    throw e
  }
}

/**
 * Whether the files are still as they were opened: each descriptor's file the same size and mtime,
 * each name still naming the opened file, and no side file come into being since (a writer
 * appending or checkpointing would do either).
 */
export function unchangedFiles(files: EvidenceFiles): boolean {
  const same = (f: OpenedFile | null, kind: SideKind | null): boolean => {
    const name = kind === null ? files.db.name : files.db.name + SIDE_SUFFIX[kind]
    let now: Stats | null = null
    try {
      now = statSync(name)
    } catch {
      now = null
    }
    if (f === null) return now === null || (now.isFile() && now.size === 0)
    try {
      const st = fstatSync(f.fd)
      return (
        st.size === f.stat.size &&
        st.mtimeMs === f.stat.mtimeMs &&
        now !== null &&
        now.dev === f.stat.dev &&
        now.ino === f.stat.ino
      )
    } catch {
      return false
    }
  }
  return same(files.db, null) && same(files.wal, 'wal') && same(files.journal, 'journal')
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
