// The integrity report an auditor takes away. Its JSON Schema is `schema/integrity-report.schema.json`;
// bump REPORT_SCHEMA_VERSION whenever a field changes meaning.
import type { Evidence } from './chain-types'
import type { ReportCoverage, ReportSignature } from './custody-types'
import type { IntegrityRun } from './integrity-types'
import type { RecoveryResult } from './recovery-types'
import type { ReplayCheck } from './replay-types'
import type { KeyInfo, VerifyVerdict } from './verify-types'

export const REPORT_SCHEMA_VERSION = '1.3.0'
export const REPORT_SCHEMA_ID = 'https://bijotel-auditor.invalid/schema/integrity-report-1.json'

export interface AuditReport {
  $schema: string
  schema_version: string
  tool: { name: 'bijotel-auditor'; version: string; node: string; platform: string }
  generated_at: string
  evidence: Evidence
  chain: { entries: number; first_seq: number | null; last_seq: number | null }
  /** null when no secret was given: the chain's MACs were then not checked. */
  verification: { keys: KeyInfo[]; verdict: VerifyVerdict } | null
  verification_note: string
  integrity: IntegrityRun
  replay_checks: ReplayCheck[]
  /**
   * Each replay batch whose checks are in `replay_checks` (since schema 1.3.0): where its kept checks
   * are, and how many more it made and did not keep (a batch keeps at most REPLAY_BATCH_KEEP).
   */
  replay_batches?: ReplayBatchRecord[]
  /**
   * Deleted rows and earlier versions of rewritten ones recovered from the files, proven against the
   * keys when given (the verdict's recovery findings refer to them). Since schema 1.1.0.
   */
  recovery: RecoveryResult
  /**
   * What the report covered (since schema 1.2.0): the evidence line and statement, and the digest of
   * its (seq, hmac_hash) rows that makes the report the next audit's prior (`verify --prior`).
   */
  coverage?: ReportCoverage
  /** Ed25519 over the RFC 8785 canonical form of the report without this member (`report --sign-key`). */
  signature?: ReportSignature
}

/** Checks one replay batch keeps for the session and its report; the rest are counted, not kept. */
export const REPLAY_BATCH_KEEP = 20_000

/** A replay batch in a report (since schema 1.3.0). */
export interface ReplayBatchRecord {
  /** Index in `replay_checks` of the batch's first kept check. */
  first: number
  /** Checks kept: `replay_checks[first]` to `replay_checks[first + kept - 1]`. */
  kept: number
  /** Checks made and not kept (past REPLAY_BATCH_KEEP); 0 when every check was kept. */
  not_kept: number
}
