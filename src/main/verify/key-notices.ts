// What the keys say about a verdict as a whole (issue 39): a bare `hmac_mismatch 1-240` does not
// tell an auditor that no row at all verifies under the key given (a wrong key), nor that rows from
// some seq on verify under none of the keys while the earlier ones do (a rotation whose new key was
// not given). The first is said in its own field (`no_key_matches`); the second is read off the
// verdict by src/shared/key-words.ts (keyMissingFrom), so --json keeps its shape. Findings stay.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'
import { signedPriorWords } from './describe'

/** `verdict` with `no_key_matches` when keys were given and no row verifies under any of them. */
export function keyNotices(verdict: VerifyVerdict, keys: KeyMaterial[]): VerifyVerdict {
  if (verdict.cancelled || verdict.hmac_checked === false || keys.length === 0 || verdict.entries === 0)
    return verdict
  return verdict.key_segments.length === 0 ? { ...verdict, no_key_matches: true } : verdict
}

/**
 * `verdict` with its prior named for what it is (issue 39): a verdict, an unsigned report (its
 * signature is checked when read; a signature that does not verify is refused there) says only what
 * its author wrote. Such a prior is `signed: false` in prior_check, its lines say "per an unsigned
 * prior", and the findings drawn only from it carry `unsigned_prior: true`.
 */
export function priorNamed(verdict: VerifyVerdict): VerifyVerdict {
  const pc = verdict.prior_check
  if (!pc) return verdict
  const by = pc.prior.source?.signed_by
  const signed = by !== undefined
  const prior = { ...pc.prior, signed }
  // Signed: named by its key on every line and finding it makes (./describe.ts signedPriorWords).
  const per = signed ? ` (${signedPriorWords(by)})` : ' (per an unsigned prior: only what its author wrote)'
  const mark = signed ? { prior_signed_by: by } : { unsigned_prior: true as const }
  return {
    ...verdict,
    prior_check: {
      ...pc,
      prior,
      detail: pc.detail + per,
      ...(pc.rows_detail !== undefined ? { rows_detail: pc.rows_detail + per } : {}),
    },
    findings: verdict.findings.map((f) =>
      f.against_prior || (f.kind === 'truncated' && !f.evidence) ? { ...f, ...mark } : f,
    ),
  }
}
