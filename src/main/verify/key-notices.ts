// What the keys say about a verdict as a whole (issue 39): a bare `hmac_mismatch 1-240` does not
// tell an auditor that no row at all verifies under the key given (a wrong key), nor that rows from
// some seq on verify under none of the keys while the earlier ones do (a rotation whose new key was
// not given). The first is said in its own field (`no_key_matches`); the second is read off the
// verdict by src/shared/key-words.ts (keyMissingFrom), so --json keeps its shape. Findings stay.
import type { VerifyVerdict } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'

/** `verdict` with `no_key_matches` when keys were given and no row verifies under any of them. */
export function keyNotices(verdict: VerifyVerdict, keys: KeyMaterial[]): VerifyVerdict {
  if (verdict.cancelled || verdict.hmac_checked === false || keys.length === 0 || verdict.entries === 0)
    return verdict
  return verdict.key_segments.length === 0 ? { ...verdict, no_key_matches: true } : verdict
}
