// What a copy source reads (./copy-source.ts): a connection on the verified private copy and what is
// known of the evidence file.
import type Database from 'better-sqlite3'
import type { Evidence } from '../../../shared/chain-types'
import type { Snapshot } from '../snapshot'
import type { FileFacts } from './row-source'

/** What a copy source reads: a connection on the private copy and what is known of the file. */
export interface CopyFile {
  db: Database.Database
  /** The chain table's columns, in declaration order. */
  columns: Set<string>
  copyPath: string
  displayPath: string
  /** The evidence's identity (absent in a worker). */
  evidence?: Evidence
  /** The open step's descriptors of the evidence, held by the snapshot (absent in a worker). */
  held?: Pick<Snapshot, 'files' | 'dbPath'>
  /**
   * A new connection of its own to the copy (see `cursor`); given by the opener, so this module
   * does not load the SQLite driver itself.
   */
  connect: () => Database.Database
}

/** A TEXT column's value, or null for any other storage class. */
export function textOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null
}

/** What the copy tells of the file (its pragmas: a worker's copy has no evidence of its own). */
export function copyFacts(file: CopyFile, names: readonly string[]): FileFacts {
  const evidence = file.evidence
  if (evidence === undefined) throw new Error('CopySource: a worker has no evidence of its own')
  const pragma = (name: string): unknown => {
    try {
      return file.db.pragma(name, { simple: true })
    } catch {
      return null
    }
  }
  return {
    reader: 'sqlite-copy',
    evidence,
    journalMode: String(pragma('journal_mode') ?? 'unknown'),
    walFrames: 0,
    pageSize: Number(pragma('page_size') ?? 0),
    pageCount: Number(pragma('page_count') ?? 0),
    bytes: evidence.db.size + (evidence.wal?.size ?? 0),
    columns: [...names],
  }
}
