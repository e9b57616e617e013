// The evidence as the carver reads it: the database file and its `-wal`, each opened once, O_RDONLY,
// and read only through that descriptor (pread); size and mtime are taken from the descriptor at
// open and compared again when the search ends, so an answer is about one state of the files.
import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs'
import { AuditError } from '../errors'

export interface EvidenceFiles {
  dbPath: string
  walPath: string
  dbFd: number
  /** -1 when there is no `-wal` (or it is empty). */
  walFd: number
  dbSize: number
  walSize: number
  readonly opened: { db: Stats; wal: Stats | null }
}

function openOrNull(path: string): number {
  try {
    return openSync(path, 'r')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return -1
    throw new AuditError('io', `cannot open ${path} for reading: ${(e as Error).message.split('\n')[0]}`)
  }
}

/** Open the database file and its `-wal` read-only. The caller closes them with closeEvidence. */
export function openEvidence(dbPath: string, walPath = `${dbPath}-wal`): EvidenceFiles {
  const dbFd = openOrNull(dbPath)
  if (dbFd < 0) throw new AuditError('db_missing', `File not found: ${dbPath}`)
  let walFd = -1
  try {
    const db = fstatSync(dbFd)
    walFd = openOrNull(walPath)
    const wal = walFd >= 0 ? fstatSync(walFd) : null
    if (wal && (!wal.isFile() || wal.size === 0)) {
      closeSync(walFd)
      walFd = -1
    }
    return {
      dbPath,
      walPath,
      dbFd,
      walFd,
      dbSize: db.size,
      walSize: walFd >= 0 ? wal!.size : 0,
      opened: { db, wal: walFd >= 0 ? wal : null },
    }
  } catch (e) {
    closeSync(dbFd)
    if (walFd >= 0) closeSync(walFd)
    throw e
  }
}

export function closeEvidence(f: EvidenceFiles): void {
  closeSync(f.dbFd)
  if (f.walFd >= 0) closeSync(f.walFd)
}

/** Read `len` bytes at `pos` into `buf` (from `off`); returns the bytes read (short at end of file). */
export function readAt(fd: number, buf: Buffer, off: number, len: number, pos: number): number {
  let got = 0
  while (got < len) {
    const n = readSync(fd, buf, off + got, len - got, pos + got)
    if (n === 0) break
    got += n
  }
  return got
}

/** Throws `evidence_changed` when a file's size or mtime moved since it was opened. */
export function assertEvidenceUnchanged(f: EvidenceFiles): void {
  const same = (fd: number, was: Stats | null): boolean => {
    if (fd < 0 || was === null) return true
    const now = fstatSync(fd)
    return now.size === was.size && now.mtimeMs === was.mtimeMs
  }
  if (!same(f.dbFd, f.opened.db) || !same(f.walFd, f.opened.wal))
    throw new AuditError(
      'evidence_changed',
      `evidence changed while it was being searched (${f.dbPath}); stop the writer or copy the file first`,
    )
}
