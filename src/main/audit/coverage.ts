// The report's coverage block (issue 25): the evidence statement of the whole chain file as the
// report read it, its `Evidence:` line, and the digest of its (seq, hmac_hash) rows.
import type { ReportCoverage } from '../../shared/custody-types'
import type { AuditReport } from '../../shared/report-types'
import type { KeyInfo } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import { blockSizeFor, digestRows } from '../chain/rows-digest'
import { buildStatement, evidenceLine, statedFromEvidence, timestampsOf } from '../chain/statement'

/** Read through the chain's source (in place, or the verified private copy: the same bytes). */
export async function reportCoverage(
  chain: HeldChain,
  summary: AuditReport['chain'],
  keys: readonly KeyInfo[],
): Promise<ReportCoverage> {
  const blockSize = blockSizeFor(summary.first_seq, summary.last_seq)
  const { rows, ts } = await chain.read((source) => ({
    rows: digestRows(source, blockSize),
    ts: timestampsOf(source, summary.first_seq, summary.last_seq),
  }))
  const statement = buildStatement(statedFromEvidence(await chain.hashed()), summary, ts, keys)
  return { line: evidenceLine(statement), statement, rows }
}
