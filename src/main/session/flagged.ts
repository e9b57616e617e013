// The rows the "flagged only" filter keeps: inside a verify finding, or named by an integrity
// anomaly. A truncated finding names no row of the file (the rows are gone), so it flags none.
import type { IntegrityRun } from '../../shared/integrity-types'
import type { VerifyVerdict } from '../../shared/verify-types'

const MAX_FLAGGED = 1_000_000

export function flaggedSeqs(verdict: VerifyVerdict | null, integrity: IntegrityRun | null): Set<number> {
  const out = new Set<number>()
  for (const f of verdict?.findings ?? []) {
    if (f.kind === 'truncated') continue
    // Past 2^53 `s++` gives `s` again (doubles there are 2 apart): such a finding's ends alone.
    if (!Number.isSafeInteger(f.from_seq) || !Number.isSafeInteger(f.to_seq)) {
      out.add(f.from_seq).add(f.to_seq)
      continue
    }
    for (let s = f.from_seq; s <= f.to_seq && out.size < MAX_FLAGGED; s++) out.add(s)
  }
  const r = integrity?.report
  if (r) {
    for (const g of r.sequence_gaps) out.add(g.before_seq)
    for (const t of r.timestamp_anomalies) if (t.seq > 0) out.add(t.seq)
    for (const h of r.hash_anomalies) out.add(h.seq)
    for (const b of r.rotation_boundaries) out.add(b.seq)
  }
  return out
}
