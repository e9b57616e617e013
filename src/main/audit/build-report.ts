// The audit report an auditor takes away (src/shared/report-types.ts, schema/integrity-report.schema.json):
// what file was read (evidence hashes), whether the HMAC chain verifies with the given keys, the
// integrity monitor's run, and any replay checks made.
import type { IntegrityOptions } from '../../shared/integrity-types'
import type { ReplayCheck } from '../../shared/replay-types'
import {
  REPORT_SCHEMA_ID,
  REPORT_SCHEMA_VERSION,
  type AuditReport,
  type ReplayBatchRecord,
} from '../../shared/report-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import type { RowSource } from '../chain/source/row-source'
import { reportCoverage } from './coverage'
import { runIntegrity, type IntegrityProgress } from '../integrity/analyze'
import { applyRecovery, type ArchiveSegments } from '../recovery/findings'
import { applySegments } from './segment-forks'
import { notSearched } from '../recovery/recover'
import { searchEvidence } from '../recovery/verdict'
import { keyInfo, type KeyMaterial } from '../chain/keys'
import { verifyRows } from '../verify/verify'
import { withWitness } from './witness'
import { TOOL_NAME, TOOL_VERSION } from '../base/version'
import { wellFormedJson } from '../base/well-formed'

export interface BuildReportInput {
  /** The chain, opened through its verified private copy (the report records its evidence hashes). */
  chain: HeldChain
  /** Candidate keys; without them the chain's MACs are not checked (verification: null). */
  keys?: KeyMaterial[]
  integrityOptions?: IntegrityOptions
  replayChecks?: ReplayCheck[]
  /** The replay batches among `replayChecks` (each with the count of checks made and not kept). */
  replayBatches?: ReplayBatchRecord[]
  /** Progress of the long phases: 'verify', then 'integrity' (and 'rotation' if it must verify again). */
  onProgress?: IntegrityProgress
  signal?: { aborted: boolean }
  /** Clock, for reproducible tests. */
  now?: () => Date
  /** Search the files for deleted and earlier rows (default true). */
  recover?: boolean
  /** Archive segments (`--segment`): recovered rows found in them are `archived`, never findings. */
  segments?: ArchiveSegments
}

export function chainSummary(source: RowSource): AuditReport['chain'] {
  const ends = source.ends()
  return {
    entries: source.count(),
    first_seq: ends === null ? null : Number(ends[0]),
    last_seq: ends === null ? null : Number(ends[1]),
  }
}

export function verificationNote(verdict: VerifyVerdict | null, keys: number): string {
  if (verdict === null) {
    return 'not verified: no secret was given, so body hashes, links and HMACs were not checked; the integrity findings are structural only'
  }
  const with_ = `${keys} candidate key${keys === 1 ? '' : 's'}`
  if (verdict.valid) return `every row verified with ${with_}: chain VALID (${verdict.entries} entries)`
  return `verified with ${with_}: chain BROKEN, ${verdict.findings.length} finding${verdict.findings.length === 1 ? '' : 's'}, first at seq=${verdict.first_bad_seq}`
}

export async function buildAuditReport(input: BuildReportInput): Promise<AuditReport> {
  const keys = input.keys ?? []
  const now = input.now ?? (() => new Date())
  const progress = input.onProgress
  const { summary, liveVerdict, integrity } = await input.chain.read(async (source) => {
    const summary = chainSummary(source)
    // With the sqlite_sequence witness notice, as `verify` and `report verify` derive the verdict
    // (./verify-file.ts): without it the report said less than verify's text of the same file.
    const liveVerdict =
      keys.length === 0
        ? null
        : withWitness(
            source,
            await verifyRows(source, keys, {
              ...(progress ? { onProgress: (d: number, t: number) => progress(d, t, 'verify') } : {}),
              ...(input.signal ? { signal: input.signal } : {}),
            }),
          )
    const integrity = await runIntegrity(source, {
      ...(input.integrityOptions ?? {}),
      keys,
      ...(liveVerdict ? { wholeChainVerdict: liveVerdict } : {}),
      ...(progress ? { onProgress: progress } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    })
    // The archive segments given prove forks of the live chain too (./segment-forks.ts).
    const judged =
      liveVerdict && input.recover !== false
        ? await applySegments(liveVerdict, source, keys, input.segments, input.signal)
        : liveVerdict
    return { summary, liveVerdict: judged, integrity }
  })
  // The evidence itself is searched, read-only (never a private copy: SQLite recovered its WAL).
  const search =
    input.recover === false
      ? null
      : await searchEvidence(input.chain.searchTarget(), keys, input.signal ? { signal: input.signal } : {})
  let recovery = search?.result ?? notSearched('turned off')
  let verdict = liveVerdict
  if (liveVerdict && search?.result.summary.searched) {
    // The findings the recovered rows prove join the verdict; the rows themselves (their statuses as
    // the segments decide) are in `recovery`.
    const {
      recovered: rows,
      recovery: summary,
      ...withFindings
    } = applyRecovery(liveVerdict, search.result, search, input.segments ? { segments: input.segments } : {})
    verdict = withFindings
    recovery = {
      ...search.result,
      rows: rows ?? search.result.rows,
      summary: summary ?? search.result.summary,
    }
  }
  // I-JSON and RFC 8785 hold no lone surrogate; a chain's text may (../base/well-formed.ts).
  return wellFormedJson<AuditReport>(
    {
      $schema: REPORT_SCHEMA_ID,
      schema_version: REPORT_SCHEMA_VERSION,
      tool: {
        name: TOOL_NAME,
        version: TOOL_VERSION,
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      generated_at: now().toISOString(),
      // Hashed once by the open (in place: in the background), not again here.
      evidence: await input.chain.hashed(),
      chain: summary,
      verification: verdict ? { keys: keys.map(keyInfo), verdict } : null,
      verification_note: verificationNote(verdict, keys.length),
      integrity,
      replay_checks: input.replayChecks ?? [],
      replay_batches: input.replayBatches ?? [],
      recovery,
      coverage: await reportCoverage(input.chain, summary, keys.map(keyInfo)),
    },
    'the report',
  )
}
