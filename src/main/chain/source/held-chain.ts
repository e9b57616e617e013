// What a session, a report or an export holds of a chain it has opened: its rows through a source,
// the evidence record, and the open step's descriptors of the evidence. Two kinds: read in place by
// the direct reader (./in-place-chain.ts: nothing copied, the evidence hashed once in the
// background) and read through a verified private copy (./opened-chain.ts: for a file the direct
// reader declines, and the CLI's `report`).
import type { Evidence } from '../../../shared/chain-types'
import type { EvidenceFiles } from '../evidence-files'
import type { RowSource } from './row-source'

/**
 * What recovery's search of a held chain reads (../../recovery/verdict.ts `searchEvidence`): the
 * evidence's own descriptors (never the copy: SQLite recovered its WAL into it), and the file the
 * live rows are read from when the direct reader declines the evidence (the rows SQLite reads).
 */
export interface EvidenceSearch {
  readonly files: EvidenceFiles
  readonly dbPath: string
}

export interface HeldChain {
  readonly kind: 'in-place' | 'copy'
  /** The path messages name (the path given). */
  readonly displayPath: string
  /** The file the rows are read from: the evidence itself in place, else its private copy. */
  readonly readPath: string
  /**
   * The open step's descriptors of the evidence: what reads the files themselves (recovery) reads
   * these, never the copy and never a second open by name.
   */
  readonly files: EvidenceFiles
  /** What recovery searches: `files`, with `readPath` for the live rows. */
  searchTarget(): EvidenceSearch
  /** The evidence record as known now: sha256 '' while the background hash runs ("hashing…"). */
  evidence(): Evidence
  /** The record once every file is hashed (at once on the copy path, hashed while copying). */
  hashed(): Promise<Evidence>
  /** `use` through the chain's source; an AuditError is an answer. */
  read<T>(use: (source: RowSource) => Promise<T> | T): Promise<T>
  /** `read` for a synchronous `use` (the entries table's rows). */
  readNow<T>(use: (source: RowSource) => T): T
  close(): void
}
