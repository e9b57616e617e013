// What a copy source reads (./copy-source.ts): a connection on the verified private copy and what is
// known of the evidence file.
import type Database from 'better-sqlite3'
import type { Evidence } from '../../../shared/chain-types'
import type { Snapshot } from '../snapshot'

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
