// What the keys say about a verdict as a whole (issue 39): a bare `hmac_mismatch 1-240` does not
// tell an auditor that no row at all verifies under the key given (a wrong key), nor that rows from
// some seq on verify under none of the keys while the earlier ones do (a rotation whose new key was
// not given). Both are said in their own fields; the findings stay as they are.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'

/** `verdict` with `no_key_matches` or `key_missing_from_seq` where the keys show them. */
export function keyNotices(verdict: VerifyVerdict, keys: KeyMaterial[]): VerifyVerdict {
  if (verdict.cancelled || verdict.hmac_checked === false || keys.length === 0 || verdict.entries === 0)
    return verdict
  if (verdict.key_segments.length === 0) return { ...verdict, no_key_matches: true }
  // The rows after the last one a key reproduces fail their HMAC to the end, their links and bodies
  // intact: what a rotation to a key not given looks like (a key holder's work, not an edit).
  const lastSealed = verdict.key_segments[verdict.key_segments.length - 1]!.to_seq
  const tail = verdict.findings.find(
    (f) => f.kind === 'hmac_mismatch' && f.from_seq > lastSealed && f.to_seq === verdict.last_seq,
  )
  if (!tail) return verdict
  const broken = verdict.findings.some(
    (f) =>
      (f.kind === 'link_mismatch' || f.kind === 'body_hash_mismatch') &&
      f.to_seq >= tail.from_seq &&
      f.from_seq <= tail.to_seq,
  )
  return broken ? verdict : { ...verdict, key_missing_from_seq: tail.from_seq }
}
