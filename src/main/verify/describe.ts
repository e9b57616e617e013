// Words for verdicts: the reference's reasons where it has them (§3.3), ours for the checks it lacks.
import type { Finding, FindingKind, VerifyVerdict } from '../../shared/verify-types'

export const REFERENCE_REASON: Partial<Record<FindingKind, string>> = {
  body_hash_mismatch: 'canonical_hash mismatch (body mutated)',
  link_mismatch: 'prev_hash mismatch (chain broken)',
  hmac_mismatch: 'hmac_hash mismatch (secret wrong or hmac mutated)',
}

export function describeFinding(f: Finding): string {
  const text = describeKind(f)
  if (f.unsigned_prior) return `${text} (per an unsigned prior)`
  return f.prior_signed_by !== undefined ? `${text} (${signedPriorWords(f.prior_signed_by)})` : text
}

/**
 * A signed prior named by its key: its signature is checked against the key the report carries, which
 * ties it to that key, not to a person — an edited prior signed anew with any key holds as well.
 */
export function signedPriorWords(fingerprint: string): string {
  return `per a prior signed by Ed25519 key ${fingerprint}, the key it carries: compare that fingerprint with the signer's`
}

function describeKind(f: Finding): string {
  switch (f.kind) {
    case 'seq_gap':
      return `seq gap: ${f.missing ?? 0} seq number(s) absent before this row (rows deleted)`
    case 'column_mismatch':
      return 'unsealed column mismatch: timestamp_ns / span_name / span_kind disagree with the sealed span body'
    case 'seq_out_of_range':
      return 'seq outside ±2^53: not a seq a BIJOTEL writer produces'
    case 'truncated':
      if (f.against_prior)
        return `chain truncated: the prior head (seq ${f.to_seq}) is no longer in the chain`
      return f.evidence
        ? `chain truncated: proven rows recovered from the files continue the chain after its head, up to seq ${f.to_seq}`
        : `chain truncated: the prior head (seq ${f.to_seq}) is no longer in the chain`
    case 'rewritten':
      if (f.segments)
        return 'rewritten: the live row differs from a row an archive segment given holds, sealed under a candidate key after the same row (a key holder sealed two rows after one, and both were committed)'
      return f.against_prior
        ? 'rewritten: differs from what the prior report recorded for these seqs (resealed by a key holder, or replaced)'
        : 'rewritten: the live row differs from a proven earlier version recovered from the files (resealed by a key holder)'
    case 'deleted':
      if (f.against_prior)
        return `deleted: ${f.count} row(s) the prior report recorded are no longer in the chain`
      if (f.segments)
        return 'deleted: an archive segment given holds rows sealed under a candidate key after rows of the live chain, at seqs the live chain lacks before its head'
      return f.unplaced
        ? `deleted: ${f.unplaced} proven row(s) recovered from the files are not in the live chain; neither a rowid nor a link gives their seq`
        : 'deleted: proven rows recovered from the files at seqs absent from the live chain'
    default:
      return REFERENCE_REASON[f.kind] ?? f.kind
  }
}

/** The one-line reason for `Chain BROKEN at seq=N: …`: the reference's check order first. */
export function headlineReason(v: VerifyVerdict): string {
  const at = v.findings.filter((f) => f.from_seq === v.first_bad_seq)
  const order: FindingKind[] = [
    'body_hash_mismatch',
    'link_mismatch',
    'hmac_mismatch',
    'seq_gap',
    'column_mismatch',
    'seq_out_of_range',
    'truncated',
    'rewritten',
    'deleted',
  ]
  for (const k of order) {
    const f = at.find((x) => x.kind === k)
    if (f) return describeFinding(f)
  }
  return 'verification failed'
}
