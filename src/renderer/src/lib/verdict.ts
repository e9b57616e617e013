// Derived facts about a verdict, for display.
import type { Finding, FindingKind, KeySegment, VerifyVerdict } from '../../../shared/verify-types'

export const FINDING_LABELS: Record<FindingKind, string> = {
  seq_gap: 'sequence gap',
  body_hash_mismatch: 'body hash mismatch',
  link_mismatch: 'link mismatch',
  hmac_mismatch: 'HMAC mismatch',
  column_mismatch: 'column mismatch',
  seq_out_of_range: 'seq out of range',
  truncated: 'truncated',
  rewritten: 'rewritten (recovered)',
  deleted: 'deleted (recovered)',
}

/**
 * A finding's label: one against a prior report (issue 25) says so, not "recovered"; one an archive
 * segment given proves (issue 39) names the segment as its proof.
 */
export function findingLabel(f: Finding): string {
  if (f.against_prior) return `${f.kind} (vs prior report)`
  return f.segments ? `${f.kind} (archive segment)` : FINDING_LABELS[f.kind]
}

export interface RotationPoint {
  /** First seq sealed by the new key. */
  seq: number
  from_key: number
  to_key: number
}

/** Where consecutive key segments change key: the rotation boundaries. */
export function rotationPoints(segments: KeySegment[]): RotationPoint[] {
  const out: RotationPoint[] = []
  for (let i = 1; i < segments.length; i++) {
    const a = segments[i - 1]!
    const b = segments[i]!
    if (a.key_index !== b.key_index) out.push({ seq: b.from_seq, from_key: a.key_index, to_key: b.key_index })
  }
  return out
}

export function verdictWord(v: VerifyVerdict): 'VALID' | 'BROKEN' | 'CANCELLED' {
  if (v.cancelled) return 'CANCELLED'
  return v.valid ? 'VALID' : 'BROKEN'
}

export function findingRange(f: Finding): string {
  return f.from_seq === f.to_seq ? `${f.from_seq}` : `${f.from_seq}–${f.to_seq}`
}

/** Does seq fall inside any finding (truncation excluded: it names rows that are absent)? */
export function findingsAt(findings: Finding[], seq: number): Finding[] {
  return findings.filter((f) => f.kind !== 'truncated' && seq >= f.from_seq && seq <= f.to_seq)
}
