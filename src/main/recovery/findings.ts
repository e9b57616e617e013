// The verdict with what the files remember: a post-pass over a finished verdict that lists the
// recovered rows and adds the findings only proof allows (a row is a finding only when a candidate
// key reproduces its HMAC, reference §3.2 — only a key holder can have sealed it):
// - `truncated`: proven rows after the live head (the chain continued; no --prior needed);
// - `rewritten`: seqs whose live row differs from a proven earlier version;
// - `deleted`: proven rows at seqs the live chain no longer has, before its head (they close a
//   seq_gap, or show a deleted prefix before the first live row); proven rows that neither a rowid
//   nor a link places make one `deleted` finding over every seq they could have had (`unplaced`).
import type { RecoveredRow, RecoveryResult, RecoverySource } from '../../shared/recovery-types'
import type { Finding, VerifyVerdict } from '../../shared/verify-types'
import { KIND_ORDER } from '../verify/ranges'

export interface LiveExtent {
  first: bigint | null
  last: bigint | null
}

/** Distinct places (file, kind, page, frame) of the rows' sources, in file order. */
export function recoverySourcesOf(rows: RecoveredRow[]): RecoverySource[] {
  const seen = new Map<string, RecoverySource>()
  for (const r of rows)
    for (const s of r.sources) {
      const k = `${s.file}|${s.kind}|${s.page}|${s.frame ?? ''}`
      if (!seen.has(k)) seen.set(k, s)
    }
  return [...seen.values()].sort((a, b) =>
    a.file === b.file ? a.offset - b.offset : a.file === 'db' ? -1 : 1,
  )
}

/** Consecutive seqs of `rows` as findings of `kind`, each with its evidence. */
function runs(kind: 'rewritten' | 'deleted', rows: RecoveredRow[]): Finding[] {
  const bySeq = new Map<number, RecoveredRow[]>()
  for (const r of rows) {
    const list = bySeq.get(r.seq!)
    if (list) list.push(r)
    else bySeq.set(r.seq!, [r])
  }
  const seqs = [...bySeq.keys()].sort((a, b) => a - b)
  const out: Finding[] = []
  for (let i = 0; i < seqs.length;) {
    let j = i
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++
    const span = seqs.slice(i, j + 1)
    out.push({
      kind,
      from_seq: seqs[i]!,
      to_seq: seqs[j]!,
      count: span.length,
      evidence: recoverySourcesOf(span.flatMap((s) => bySeq.get(s)!)),
    })
    i = j + 1
  }
  return out
}

/** Whether a recovered seq lies in the range the verdict covers (a whole-chain verdict covers all). */
function inVerifiedRange(v: VerifyVerdict, seq: number, live: LiveExtent): boolean {
  if (!v.range) return true
  const { from_seq, to_seq, requested } = v.range
  if (from_seq === null || to_seq === null) return false
  if (seq >= from_seq && seq <= to_seq) return true
  // Past the head only when the range runs to the head with no upper bound of its own.
  const open = requested.seq_end === undefined && requested.until_ns === undefined
  return open && seq > to_seq && live.last !== null && BigInt(to_seq) === live.last
}

/** `verdict` with the recovered rows listed and the findings they prove added. */
export function applyRecovery(
  verdict: VerifyVerdict,
  result: RecoveryResult,
  live: LiveExtent,
): VerifyVerdict {
  const rows = result.rows.filter((r) => r.seq === null || inVerifiedRange(verdict, r.seq, live))
  const proven = rows.filter((r) => r.key_index !== null && r.seq !== null && r.seq_exact === undefined)
  const findings = [...verdict.findings]
  const last = live.last === null ? null : Number(live.last)
  const rewritten = proven.filter((r) => r.status === 'superseded')
  const deleted = proven.filter((r) => r.status === 'deleted' && (last === null || r.seq! <= last))
  const after = proven.filter((r) => r.status === 'deleted' && last !== null && r.seq! > last)
  findings.push(...runs('rewritten', rewritten), ...runs('deleted', deleted))
  if (after.length > 0) {
    let from = last! + 1
    // A loop, not Math.max(...spread): a truncation of 100k+ recovered rows would overflow the stack.
    let to = last!
    for (const r of after) if (r.seq! > to) to = r.seq!
    const prior = findings.findIndex((f) => f.kind === 'truncated')
    if (prior >= 0) {
      // The --prior witness and the recovered rows say the same thing: one finding.
      const p = findings.splice(prior, 1)[0]!
      from = Math.min(from, p.from_seq)
      to = Math.max(to, p.to_seq)
    }
    const n = to - from + 1
    findings.push({
      kind: 'truncated',
      from_seq: from,
      to_seq: to,
      count: n,
      missing: n,
      evidence: recoverySourcesOf(after),
    })
  }
  // Proven rows that nothing places are still sealed rows the live chain lost (ranges: docs/recovery.md).
  const unplaced = rows.filter((r) => r.key_index !== null && r.seq === null)
  if (unplaced.length > 0) {
    const from = live.first === null ? 1 : Number(live.first)
    const to = (live.last === null ? 0 : Number(live.last)) + unplaced.length
    findings.push({
      kind: 'deleted',
      from_seq: from,
      to_seq: Math.max(from, to),
      count: unplaced.length,
      unplaced: unplaced.length,
      evidence: recoverySourcesOf(unplaced),
    })
  }
  findings.sort((a, b) => a.from_seq - b.from_seq || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))
  let firstBad: number | null = null
  for (const f of findings) if (firstBad === null || f.from_seq < firstBad) firstBad = f.from_seq
  return {
    ...verdict,
    valid: findings.length === 0,
    first_bad_seq: firstBad,
    findings,
    recovery: {
      ...result.summary,
      recovered: rows.length,
      proven: rows.filter((r) => r.key_index !== null).length,
    },
    recovered: rows,
  }
}
