// The words for what the keys say about a verdict as a whole (issue 39), one text for the CLI's
// `Keys:` line, the report and the app.
import type { VerifyVerdict } from './verify-types'

/**
 * The seq from which rows verify under none of the keys while earlier rows do, their links and bodies
 * intact — what a rotation to a key not given looks like (or a key holder's reseal under another
 * key: the sentence says "may"). Derived from the verdict, so `--json` keeps the fixtures' shape.
 */
export function keyMissingFrom(v: VerifyVerdict): number | null {
  if (v.cancelled || v.hmac_checked === false || v.key_segments.length === 0) return null
  const lastSealed = v.key_segments[v.key_segments.length - 1]!.to_seq
  const tail = v.findings.find(
    (f) => f.kind === 'hmac_mismatch' && f.from_seq > lastSealed && f.to_seq === v.last_seq,
  )
  if (!tail) return null
  const broken = v.findings.some(
    (f) =>
      (f.kind === 'link_mismatch' || f.kind === 'body_hash_mismatch') &&
      f.to_seq >= tail.from_seq &&
      f.from_seq <= tail.to_seq,
  )
  return broken ? null : tail.from_seq
}

/** The `Keys:` sentence (without the label), or null when the keys say nothing more than the findings. */
export function keysSentence(v: VerifyVerdict, fingerprints: string[]): string | null {
  if (v.no_key_matches)
    return `no row of this chain verifies under the given key(s) (fingerprints ${fingerprints.join(', ')}): a wrong key?`
  const from = keyMissingFrom(v)
  if (from !== null)
    return (
      `rows from seq ${from} on verify under none of the given keys while earlier rows do: ` +
      `a rotated key may be missing from seq ${from}`
    )
  return null
}
