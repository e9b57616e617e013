// "Verdicts name what they judged" (issue 25): the evidence statement — the chain file and its
// `-wal` (path, size, SHA-256), the rows judged (seq range, count, first and last timestamp_ns) and
// the candidate keys' fingerprints — and the one `Evidence:` line the text outputs end with, which
// an auditor pastes into a case file.
import { hasUnprintable, jsonPrintable } from '../../shared/printable'
import type { Evidence } from '../../shared/chain-types'
import type { EvidenceStatement, StatedFile } from '../../shared/custody-types'
import type { KeyInfo } from '../../shared/verify-types'
import { unchangedFiles, type EvidenceFiles } from './evidence-files'
import { nsToIso } from './ns-time'
import { hashFileParallel } from './snapshot'
import { nativeFileHashActive, type FileTap } from './addon/file-hash'
import { AuditError } from '../base/errors'
import type { ChainRow, RowSource } from './source/row-source'

export interface StatedFiles {
  db: StatedFile
  wal: StatedFile | null
}

/**
 * SHA-256 of a chain file and of its `-wal` (when it holds bytes: an empty one holds no rows, as the
 * snapshot treats it), read through the open step's descriptors (../chain/evidence-files.ts: the
 * very files the reader judged, named as the copy path names them), each on its own worker thread
 * when large, so the hashing runs beside a verification reading the same file. The files are then
 * checked unchanged (size, mtime, names), so the hashes are of the bytes that were judged.
 */
export async function hashEvidenceFiles(
  files: EvidenceFiles,
  signal?: AbortSignal,
  tap?: FileTap,
): Promise<StatedFiles> {
  const wal = files.wal && files.wal.stat.size > 0 ? files.wal : null
  const none = (): void => {}
  const [db, walHash] = await Promise.all([
    hashFileParallel(files.db.fd, files.db.stat.size, none, signal, tap),
    wal ? hashFileParallel(wal.fd, wal.stat.size, none, signal) : null,
  ])
  if (
    db.bytes !== files.db.stat.size ||
    (wal && walHash?.bytes !== wal.stat.size) ||
    !unchangedFiles(files)
  ) {
    throw new AuditError(
      'evidence_changed',
      `evidence changed while it was being read (${files.given}); stop the writer or copy the file first`,
    )
  }
  return {
    db: { path: files.given, size: files.db.stat.size, sha256: db.sha256 },
    wal: wal && walHash ? { path: wal.name, size: wal.stat.size, sha256: walHash.sha256 } : null,
  }
}

/** The files as a verified private copy recorded them (the snapshot hashed them already). */
export function statedFromEvidence(ev: Evidence): StatedFiles {
  const f = (x: Evidence['db']): StatedFile => ({ path: x.path, size: x.size, sha256: x.sha256 })
  return { db: f(ev.db), wal: ev.wal ? f(ev.wal) : null }
}

export interface RowSpan {
  entries: number
  first_seq: number | null
  last_seq: number | null
}

export type Timestamps = [string | null, string | null]

/** `timestamp_ns` of two rows, read through the source (null where absent or not an integer). */
export function timestampsOf(source: RowSource, first: number | null, last: number | null): Timestamps {
  const col = source.col('timestamp_ns')
  const at = (seq: number | null, which: 'first' | 'last'): string | null => {
    if (seq === null || col < 0) return null
    let v: string | null = null
    const take = (c: ChainRow): void => void (v = c.isInt(col) ? (c.intBig(col)?.toString() ?? null) : null)
    // The rows the pass begins and ends on: the scan's first row with the first seq, its last row
    // with the last seq (a table may hold a seq twice, file format §1.6; both readers state the
    // same row). The first is read at the scan's edge where it holds the seq (one leaf, where a
    // lookup by seq reads every leaf's rowids: ./source/direct-source.ts find).
    if (which === 'last') source.findLast(BigInt(seq), take, ['timestamp_ns'])
    else if (!source.edge?.(which, BigInt(seq), take)) source.find(BigInt(seq), take, ['timestamp_ns'])
    return v
  }
  return [at(first, 'first'), at(last, 'last')]
}

/** The files being stated, while a pass reads them: `done` gives their hashes, `abort` stops the hashing. */
export interface Stating {
  done(): Promise<StatedFiles>
  abort(): void
  /** Whether the database file is being hashed through the addon beside the pass (one core busy). */
  hashing: boolean
}

/**
 * The evidence's files as `source` read them: a verified copy's hashes (the snapshot hashed the
 * evidence while copying), or, read in place by the direct reader, the file and its -wal hashed
 * through the open step's descriptors on their own threads, started now so that they run beside
 * the pass that reads the rows. `tap` (the recovery carver) gets the database file's bytes as the
 * hash reads them, where the addon hashes; otherwise its `end(0)` says to read the file itself.
 */
export function startStating(source: RowSource, tap?: FileTap): Stating {
  const ev = source.facts().evidence
  const of = source.evidenceFiles()
  const file = of !== null && 'inPlace' in of ? of.inPlace : null
  if (ev.db.sha256 !== '' || file === null) {
    tap?.end(0)
    const stated = statedFromEvidence(ev)
    return { done: () => Promise.resolve(stated), abort: () => undefined, hashing: false }
  }
  const abort = new AbortController()
  const hashing = hashEvidenceFiles(file.files, abort.signal, tap)
  hashing.catch(() => undefined) // awaited by done(); a refusal of the file leaves it aborted
  return { done: () => hashing, abort: () => abort.abort(), hashing: nativeFileHashActive() }
}

export function buildStatement(
  files: StatedFiles,
  rows: RowSpan,
  ts: Timestamps,
  keys: readonly KeyInfo[],
): EvidenceStatement {
  return {
    db: files.db,
    wal: files.wal,
    entries: rows.entries,
    first_seq: rows.first_seq,
    last_seq: rows.last_seq,
    first_timestamp_ns: ts[0],
    last_timestamp_ns: ts[1],
    key_fingerprints: keys.map((k) => k.fingerprint),
  }
}

/**
 * A path as one word: JSON-quoted when it holds a space, `;`, `"`, `=`, a backslash or a control,
 * a line separator or a bidi mark (shared/printable.ts), each escaped.
 */
function word(p: string): string {
  // jsonPrintable(): JSON.stringify leaves the C1 controls, U+2028/9 and the bidi marks as they are.
  if (hasUnprintable(p)) return jsonPrintable(p)
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i)
    if (c < 0x21 || c === 0x7f || c === 0x22 || c === 0x3b || c === 0x3d || c === 0x5c)
      return JSON.stringify(p)
  }
  return p
}

function file(f: StatedFile): string {
  return `${word(f.path)} size=${f.size} sha256=${f.sha256}`
}

function time(ns: string | null): string {
  return ns === null ? 'none' : nsToIso(BigInt(ns))
}

/**
 * The statement as one line of `key=value` groups separated by `; `:
 * `Evidence: db=PATH size=N sha256=HEX; wal=PATH size=N sha256=HEX|none; seq=A-B entries=N;
 * first_time=ISO last_time=ISO; keys=FP,FP|none`.
 */
export function evidenceLine(s: EvidenceStatement): string {
  const seq = s.first_seq === null ? 'none' : `${s.first_seq}-${s.last_seq}`
  return [
    `Evidence: db=${file(s.db)}`,
    `wal=${s.wal ? file(s.wal) : 'none'}`,
    `seq=${seq} entries=${s.entries}`,
    `first_time=${time(s.first_timestamp_ns)} last_time=${time(s.last_timestamp_ns)}`,
    `keys=${s.key_fingerprints.length > 0 ? s.key_fingerprints.join(',') : 'none'}`,
  ].join('; ')
}
