// The evidence record (shared/chain-types.ts `Evidence`) of a chain read in place: the files the open
// step holds (./evidence-files.ts), named and sized as opened, and their SHA-256 once hashed. The
// hashes are taken through the very descriptors the rows are read from — the chain and its `-wal`
// by ./statement.ts `hashEvidenceFiles` (one stream per file, each on its own thread when large),
// the side files SQLite does not apply (an empty or cold `-journal`, the `-shm`) recorded the same
// way — and the files are re-checked unchanged (size, mtime, names) after, so the record is about
// the bytes that were read. Nothing is copied and nothing is written.
import type { Stats } from 'node:fs'
import type { Evidence, EvidenceFile } from '../../shared/chain-types'
import { AuditError } from '../base/errors'
import { unchangedFiles, type EvidenceFiles, type OpenedFile } from './evidence-files'
import { hashFileParallel } from './snapshot'
import { hashEvidenceFiles } from './statement'

function fileOf(
  path: string,
  st: Stats,
  sha256: string,
  link: string | null,
  extra: Partial<EvidenceFile> = {},
): EvidenceFile {
  return {
    path,
    size: st.size,
    sha256,
    mtime: new Date(st.mtimeMs).toISOString(),
    ...(link !== null ? { link_target: link } : {}),
    ...extra,
  }
}

/** A side file's real path when its name is a link (as the copy path records it). */
const linkOf = (f: OpenedFile): string | null => (f.real !== f.name ? f.real : null)

/** The side files SQLite does not apply when the direct reader takes the file: recorded only. */
function recorded(files: EvidenceFiles): OpenedFile[] {
  return [files.journal, files.shm].filter((f): f is OpenedFile => f !== null)
}

/** What the record holds before the hashes are known: every sha256 is '' ("hashing…"). */
export function evidenceUnhashed(files: EvidenceFiles, method: string): Evidence {
  const wal = files.wal && files.wal.stat.size > 0 ? files.wal : null
  const dbLink = files.given !== files.db.real ? files.db.real : null
  return {
    db: fileOf(files.given, files.db.stat, '', dbLink),
    wal: wal ? fileOf(wal.name, wal.stat, '', linkOf(wal), { applied: true }) : null,
    side_files: recorded(files).map((f) => fileOf(f.name, f.stat, '', linkOf(f), { applied: false })),
    method,
    unchanged_after_copy: false,
  }
}

/**
 * The record with every file hashed through its descriptor, then the files re-checked unchanged:
 * `evidence_changed` when a writer moved them meanwhile. `unchanged_after_copy` is true: read in
 * place, "after the copy" is after the hash (nothing else was made).
 */
export async function hashEvidence(
  files: EvidenceFiles,
  method: string,
  signal?: AbortSignal,
): Promise<Evidence> {
  const side = recorded(files)
  const [stated, ...sideHashes] = await Promise.all([
    hashEvidenceFiles(files, signal),
    ...side.map((f) => hashFileParallel(f.fd, f.stat.size, () => undefined, signal)),
  ])
  if (!unchangedFiles(files) || side.some((f, i) => sideHashes[i]!.bytes !== f.stat.size))
    throw new AuditError(
      'evidence_changed',
      `evidence changed while it was being read (${files.given}); stop the writer or copy the file first`,
    )
  const ev = evidenceUnhashed(files, method)
  return {
    ...ev,
    db: { ...ev.db, sha256: stated.db.sha256 },
    wal: ev.wal && stated.wal ? { ...ev.wal, sha256: stated.wal.sha256 } : ev.wal,
    side_files: ev.side_files.map((f, i) => ({ ...f, sha256: sideHashes[i]!.sha256 })),
    unchanged_after_copy: true,
  }
}
