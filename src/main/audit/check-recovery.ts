// `report verify` for a report's recovery block (schema 1.1.0, ../recovery): the evidence is
// searched again the way `bijotel report` searched it (the files themselves, never the private
// copy), the proven findings join the re-run verdict as they joined the report's, and the block is
// compared: the summary member by member, then the recovered rows and the uncommitted ones.
import type { RecoveryResult } from '../../shared/recovery-types'
import type { AuditReport } from '../../shared/report-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import { applyRecovery } from '../recovery/findings'
import { notSearched } from '../recovery/recover'
import { searchEvidence, type Searched } from '../recovery/verdict'
import type { KeyMaterial } from '../chain/keys'
import type { FieldList } from './check-fields'

/** The report's recovery block, when it has one that was searched (else null: nothing to re-run). */
function searchedBlock(doc: Record<string, unknown>): RecoveryResult | null {
  const rec = (doc as unknown as Partial<AuditReport>).recovery
  return rec && typeof rec === 'object' && rec.summary?.searched === true ? rec : null
}

/** The evidence searched again with `keys`, when the report's recovery block says it was searched. */
export async function rerunRecovery(
  doc: Record<string, unknown>,
  chain: HeldChain,
  keys: KeyMaterial[],
): Promise<Searched | null> {
  if (searchedBlock(doc) === null) return null
  // Through the descriptors the open step holds, as the report's own search read them.
  return searchEvidence(chain.searchTarget(), keys)
}

/** The verdict as the report built it: the live verdict with the findings the recovered rows prove. */
export function verdictWithRecovery(live: VerifyVerdict, search: Searched | null): VerifyVerdict {
  if (!search?.result.summary.searched) return live
  const { recovered: _rows, recovery: _summary, ...withFindings } = applyRecovery(live, search.result, search)
  return withFindings
}

export function checkRecovery(f: FieldList, doc: Record<string, unknown>, search: Searched | null): void {
  const reported = (doc as unknown as Partial<AuditReport>).recovery
  if (reported === undefined) {
    f.notChecked(
      'recovery',
      undefined,
      'the report has no recovery block (written before schema 1.1.0)',
      true,
    )
    return
  }
  if (search === null) {
    f.notChecked(
      'recovery.summary',
      reported?.summary,
      'the files were not searched when the report was written: nothing to re-run',
      true,
    )
    // A search that did not happen found nothing: rows listed under it (which the page shows as
    // recovered) would be claims nothing re-runs, so they are held to what such a search gives.
    const none = notSearched('')
    for (const k of ['recovered', 'proven', 'copies_of_live', 'uncommitted_only', 'scanned'] as const)
      f.compare(`recovery.summary.${k}`, reported?.summary?.[k], none.summary[k])
    f.compare('recovery.rows', reported?.rows, none.rows)
    f.compare('recovery.uncommitted', reported?.uncommitted, none.uncommitted)
    return
  }
  const now = search.result
  f.compareMembers('recovery.summary', reported.summary, now.summary)
  f.compare('recovery.rows', reported.rows, now.rows)
  f.compare('recovery.uncommitted', reported.uncommitted, now.uncommitted)
}
