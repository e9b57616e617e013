// The evidence as the carver reads it: the descriptors of the chain's one open step
// (../chain/evidence-files.ts: the path resolved as SQLite resolves it, side files by the real path's
// name and under the open policy), held for as long as the search runs. Nothing here opens a file by
// name: the carver reads the very files the live chain was read from. Size and mtime are those of
// the open, compared again when the search ends, so an answer is about one state of the files.
import { fstatSync, type Stats } from 'node:fs'
import type { EvidenceFiles as ChainFiles } from '../chain/evidence-files'
import { AuditError } from '../base/errors'

export interface EvidenceFiles {
  dbPath: string
  walPath: string
  dbFd: number
  /** -1 when there is no `-wal` (or it is empty). */
  walFd: number
  /** -1 when there is no `-journal` (or it is empty). */
  journalFd: number
  dbSize: number
  walSize: number
  journalSize: number
  readonly opened: { db: Stats; wal: Stats | null; journal: Stats | null }
  /** The open step's files this view holds (one hold, given up by closeEvidence). */
  readonly chain: ChainFiles
}

/** A view of already opened chain files; takes one hold on them. */
export function evidenceOf(files: ChainFiles): EvidenceFiles {
  files.hold()
  const wal = files.wal && files.wal.stat.isFile() && files.wal.stat.size > 0 ? files.wal : null
  const journal =
    files.journal && files.journal.stat.isFile() && files.journal.stat.size > 0 ? files.journal : null
  return {
    dbPath: files.db.name,
    walPath: files.db.name + '-wal',
    dbFd: files.db.fd,
    walFd: wal ? wal.fd : -1,
    journalFd: journal ? journal.fd : -1,
    dbSize: files.db.stat.size,
    walSize: wal ? wal.stat.size : 0,
    journalSize: journal ? journal.stat.size : 0,
    opened: { db: files.db.stat, wal: wal ? wal.stat : null, journal: journal ? journal.stat : null },
    chain: files,
  }
}

export function closeEvidence(f: EvidenceFiles): void {
  f.chain.close()
}

/** Throws `evidence_changed` when a file's size or mtime moved since it was opened. */
export function assertEvidenceUnchanged(f: EvidenceFiles): void {
  const same = (fd: number, was: Stats | null): boolean => {
    if (fd < 0 || was === null) return true
    const now = fstatSync(fd)
    return now.size === was.size && now.mtimeMs === was.mtimeMs
  }
  if (!same(f.dbFd, f.opened.db) || !same(f.walFd, f.opened.wal) || !same(f.journalFd, f.opened.journal))
    throw new AuditError(
      'evidence_changed',
      `evidence changed while it was being searched (${f.dbPath}); stop the writer or copy the file first`,
    )
}
