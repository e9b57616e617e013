// The report's coverage block (issue 25): the evidence statement of the whole chain file as the
// report read it, its `Evidence:` line, and the digest of its (seq, hmac_hash) rows.
import type { ReportCoverage } from '../../shared/custody-types'
import type { AuditReport } from '../../shared/report-types'
import type { KeyInfo } from '../../shared/verify-types'
import { withDirect } from '../chain/direct/open'
import { RowScanner } from '../chain/direct/scan'
import type { ChainFile } from '../chain/reader'
import { layoutOf } from '../verify/direct'
import { blockSizeFor, digestRowsDirect, digestRowsSql } from './rows-digest'
import {
  buildStatement,
  evidenceLine,
  statedFromEvidence,
  timestampsDirect,
  timestampsSql,
  type Timestamps,
} from './statement'

/** Read on the verified private copy (the same bytes as the evidence): directly where the reader takes it. */
export async function reportCoverage(
  chain: ChainFile,
  summary: AuditReport['chain'],
  keys: readonly KeyInfo[],
): Promise<ReportCoverage> {
  const blockSize = blockSizeFor(summary.first_seq, summary.last_seq)
  const read = await withDirect(chain.snapshot.dbPath, (d) => {
    const scanner = new RowScanner(layoutOf(d))
    try {
      const rows = digestRowsDirect(scanner, blockSize)
      const ts: Timestamps = timestampsDirect(d, summary.first_seq, summary.last_seq)
      return Promise.resolve({ rows, ts })
    } finally {
      scanner.close()
    }
  })
  const rows = read?.rows ?? digestRowsSql(chain.db, blockSize)
  const ts = read?.ts ?? timestampsSql(chain.db, summary.first_seq, summary.last_seq)
  const statement = buildStatement(statedFromEvidence(chain.snapshot.evidence), summary, ts, keys)
  return { line: evidenceLine(statement), statement, rows }
}
