// The open step, done once for every reader: the chain's path is resolved to its real path (every
// symbolic link followed, as SQLite's unix VFS does in `unixFullPathname`, os_unix.c) *before* the
// side-file names `-wal`, `-journal` and `-shm` are made from it, exactly as SQLite makes them;
// each file is then opened once, read-only, and its descriptor checked (a regular file, the same
// device and inode its real path names after the open). From then on the pager, the WAL index, the
// native walks, the evidence hashes and the private copy read through these descriptors only: a
// file swapped for another after the check is never read. An open policy (the server's
// `--open-root`) is a predicate on real paths applied to every one of these files.
import { closeSync, fstatSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { absentInside, errnoOf, openVerified, type OpenPolicy } from '../base/client-file'
import { AuditError } from '../base/errors'
import { noteInput } from '../base/inputs'

export type { OpenPolicy } from '../base/client-file'
export { readAt } from '../base/client-file'

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

function errno(e: unknown): string | undefined {
  return errnoOf(e)
}

/**
 * A file refused as outside the policy. `shownLink`: a side file's link as stored (what whoever
 * made it wrote), never what it resolves to: the resolution outside the roots is not told.
 */
function outside(what: string, name: string, shownLink: string | null): AuditError {
  const where = shownLink === null ? name : `${name} (a link to ${shownLink})`
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
  const { fd, stat } = openVerified(real, opts.policy, {
    changed: () => changed(name),
    outside: () => outside(what, name, what === 'side file' ? link : null),
    notFile: (kind) => new AuditError('not_a_file', `${what} ${name} is ${kind}, not a regular file`),
    io: (e) =>
      errno(e) === 'EACCES' || errno(e) === 'EPERM'
        ? new AuditError('io', `cannot read ${name}: permission denied`)
        : new AuditError('io', `cannot read ${name}: ${(e as Error).message}`),
  })
  return { name, real, link, fd, stat }
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
    if (opts.policy && link !== null) {
      // A link that does not resolve: absent (as SQLite sees it) only when its target ends at
      // nothing inside the policy; otherwise one refusal whatever it leads to, so the answer tells
      // nothing of what exists outside (nor why the lookup failed there).
      const target = isAbsolute(link) ? link : `${dirname(name)}/${link}`
      if ((code === 'ENOENT' || code === 'ENOTDIR') && absentInside(target, opts.policy)) return null
      throw outside('side file', name, link)
    }
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    if (code === 'ELOOP') throw new AuditError('not_a_file', `side file ${name} is a loop of symbolic links`)
    throw new AuditError('io', `cannot read ${name}: ${(e as Error).message}`)
  }
  if (opts.policy && !opts.policy(real)) throw outside('side file', name, link)
  return openChecked(name, real, link, 'side file', opts)
}

/** Under a policy, absent and outside are one answer: no client learns what exists elsewhere. */
function notAllowed(path: string): AuditError {
  return new AuditError(
    'bad_argument',
    `opening ${path} is not allowed here: it is outside the folders this server may read (ask whoever started it to add the folder)`,
  )
}

/**
 * The open step for the chain at `path`: the chain and its side files opened once, read-only, and
 * checked. Throws an AuditError naming the file: `db_missing`, `not_a_file`, `io`,
 * `evidence_changed` (swapped during the open), `bad_argument` (outside the policy).
 */
export function openEvidence(path: string, opts: OpenOptions = {}): EvidenceFiles {
  // No file name holds a NUL (POSIX.1-2017 §3.170, a filename is bytes other than '/' and NUL):
  // such a path names no file. Said in one line of our own — node's own refusal ("The argument
  // 'path' must be … without null bytes. Received …") came out as "cannot read" and `not_a_chain`.
  if (path === '' || path.includes('\0'))
    throw new AuditError(
      'bad_argument',
      path === ''
        ? 'not a path: the path is empty'
        : `not a path: ${JSON.stringify(path.slice(0, 200))} holds a NUL character`,
    )
  const given = resolve(path)
  let real: string
  try {
    // The path as given, resolved by the kernel: `..` after a symbolic link is taken from the
    // link's target, as open(2) and the policy take it (issue 34), not lexically as resolve() would.
    real = realpathSync.native(path)
  } catch (e) {
    const code = errno(e)
    if (opts.policy && !((code === 'ENOENT' || code === 'ENOTDIR') && absentInside(path, opts.policy)))
      throw notAllowed(path)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new AuditError('db_missing', `DB not found: ${path}`)
    if (code === 'ELOOP')
      throw new AuditError('not_a_file', `not a regular file: ${path} is a loop of symbolic links`)
    if (code === 'EACCES' || code === 'EPERM')
      throw new AuditError('io', `cannot read ${path}: permission denied`)
    throw new AuditError('io', `cannot read ${path}: ${(e as Error).message}`)
  }
  const link = real === given ? null : real
  // The chain itself outside the policy gets the very answer an absent one does (no oracle of what
  // exists elsewhere); its side files, once the chain is inside, are named with what they link to.
  if (opts.policy && !opts.policy(real)) throw notAllowed(path)
  let db: OpenedFile
  try {
    db = openChecked(real, real, link, 'chain', opts)
  } catch (e) {
    if (e instanceof AuditError && e.code === 'not_a_file')
      throw new AuditError('not_a_file', `not a regular file: ${path}`)
    throw e
  }
  const opened: OpenedFile[] = [db]
  // The chain, its side files' names and (below) any side file linked elsewhere are this run's
  // evidence: no output may be written over them (base/inputs.ts).
  noteInput(real, db.stat, `the chain ${real}`, true)
  try {
    const side = (kind: SideKind): OpenedFile | null => {
      const f = openSide(real, kind, opts)
      if (f) {
        opened.push(f)
        noteInput(f.real, f.stat, `the side file ${f.name}`)
      }
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
 * appending or checkpointing would do either). `ctime`: the ctime too — a write sets it and, unlike
 * the mtime, nothing can set it back (utimensat); the private copy, made in one read of the
 * evidence (./copy-hashed.ts), asks for it, so a file written during that read is refused even
 * with its mtime restored. (So does any metadata change: chmod, chown, a new hard link.)
 */
export function unchangedFiles(files: EvidenceFiles, ctime = false): boolean {
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
        (!ctime || st.ctimeMs === f.stat.ctimeMs) &&
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
