// Whether the rows a drift judgement read its values from hold, seen without a key: a body that
// does not hash to its canonical_hash, or a prev_hash that is not the previous row's hmac_hash, needs
// no key to be seen (reference §3.2). Such a row's payload is not the one sealed: a baseline built on
// it, or an anomaly found at it, says nothing of the sealed calls (issue 37's rule for replay,
// applied to payload drift). The check is the chain verifier's pass over the rows read: keyless, or
// with the HMAC too when candidate keys are given (an edit that recomputed canonical_hash).
import type { DriftRowCheck } from '../../shared/drift-types'
import type { FindingKind } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'
import type { RowSource } from '../chain/source/row-source'
import { verifyRows } from '../verify/verify'
import { AuditError } from '../base/errors'
import { firstAtLeast } from '../base/sorted'

/** Failures that make a row not hold (the HMAC only when a key is given). */
const FAILING: readonly FindingKind[] = ['body_hash_mismatch', 'link_mismatch', 'hmac_mismatch']

const WORDS: Partial<Record<FindingKind, string>> = {
  body_hash_mismatch: 'body does not hash to its canonical_hash',
  link_mismatch: "prev_hash is not the previous row's hmac_hash",
  hmac_mismatch: 'no candidate key reproduces its hmac_hash',
  column_mismatch: 'its unsealed timestamp_ns / span_name / span_kind disagree with the sealed body',
}

/** Runs of seqs listed in the line at most (every seq is in `seqs`). */
const LISTED = 10

/**
 * The keyless verdict on the rows whose values were used (`used`) and those reported as anomalies
 * (`flagged`, whose printed time is the unsealed timestamp_ns): null when every used row holds, or
 * when the table lacks the columns to check.
 */
export async function usedRowsCheck(
  src: RowSource,
  keys: KeyMaterial[],
  used: ReadonlySet<bigint>,
  flagged: ReadonlySet<bigint>,
  signal?: { aborted: boolean },
): Promise<DriftRowCheck | null> {
  if (used.size === 0) return null
  if (['canonical_hash', 'prev_hash', 'hmac_hash'].some((c) => src.col(c) < 0)) return null
  let lo = -1n
  let hi = -1n
  for (const s of used) {
    if (lo === -1n || s < lo) lo = s
    if (hi === -1n || s > hi) hi = s
  }
  // The verifier's findings name seqs as JSON numbers: past ±2^53 a finding at 2^53 + 1 reads
  // 2^53, matched no row here, and an edited row read as holding. Refused, as integrity refuses such seqs.
  const safe = BigInt(Number.MAX_SAFE_INTEGER)
  if (hi > safe || lo < -safe)
    throw new AuditError(
      'corrupt',
      `seq ${hi > safe ? hi : lo} is beyond the exact range of a JSON number (±2^53): the rows this judgement reads cannot be checked by seq`,
    )
  const v = await verifyRows(src, keys, {
    range: { seq_start: Number(lo), seq_end: Number(hi) },
    keyless: keys.length === 0,
    workers: 1,
    ...(signal ? { signal } : {}),
  })
  // Each finding is matched against the rows asked about by binary search over them sorted: a
  // finding costs O(log |rows|) plus the rows it names, however wide its seq span or however many
  // findings the insider's rows make (a table whose seq repeats made 10^5 findings at one seq: each
  // copied that seq's list of reasons, minutes and a line of megabytes). A row's reasons are a set.
  const bad = new Map<bigint, Set<FindingKind>>()
  const note = new Map<bigint, Set<FindingKind>>()
  const sortedUsed = sortedSeqs(used)
  const sortedFlagged = sortedSeqs(flagged)
  for (const f of v.findings) {
    const failing = FAILING.includes(f.kind)
    if (!failing && f.kind !== 'column_mismatch') continue
    const among = failing ? sortedUsed : sortedFlagged
    const into = failing ? bad : note
    const from = BigInt(f.from_seq)
    const to = BigInt(f.to_seq)
    for (let i = firstAtLeast(among, from); i < among.length && among[i]! <= to; i++) {
      const s = among[i]!
      const kinds = into.get(s)
      if (kinds) kinds.add(f.kind)
      else into.set(s, new Set([f.kind]))
    }
  }
  if (bad.size === 0 && note.size === 0) return null
  const list = (m: Map<bigint, Set<FindingKind>>): string => {
    // Consecutive seqs with the same reasons as one range ("seqs 161-240 (…)").
    const seqs = [...m.keys()].sort((a, b) => (a < b ? -1 : 1))
    const runs: { from: bigint; to: bigint; why: string }[] = []
    for (const s of seqs) {
      // In the order of FAILING / WORDS, not of the findings: one wording per set of reasons.
      const kinds = m.get(s)!
      const why = (Object.keys(WORDS) as FindingKind[])
        .filter((k) => kinds.has(k))
        .map((k) => WORDS[k])
        .join('; ')
      const last = runs[runs.length - 1]
      if (last && last.to + 1n === s && last.why === why) last.to = s
      else runs.push({ from: s, to: s, why })
    }
    const shown = runs
      .slice(0, LISTED)
      .map((r) => `${r.from === r.to ? `seq ${r.from}` : `seqs ${r.from}-${r.to}`} (${r.why})`)
    return shown.join(', ') + (runs.length > LISTED ? `, and ${runs.length - LISTED} more runs of rows` : '')
  }
  const how =
    keys.length === 0
      ? 'seen without a key; HMAC not checked'
      : `HMAC checked with ${keys.length} candidate key${keys.length === 1 ? '' : 's'}`
  const parts: string[] = []
  if (bad.size > 0)
    parts.push(
      `rows whose values this judgement reads do NOT verify (${how}): ${list(bad)}; ` +
        'nothing proves their payloads are the ones sealed, so a baseline or an anomaly built on them proves nothing',
    )
  if (note.size > 0)
    parts.push(`the time shown for an anomaly is the unsealed timestamp_ns, and for ${list(note)}`)
  return {
    verified: bad.size === 0,
    seqs: [...bad.keys()].sort((a, b) => (a < b ? -1 : 1)).map(Number),
    detail: parts.join('; '),
  }
}

function sortedSeqs(seqs: ReadonlySet<bigint>): bigint[] {
  return [...seqs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
