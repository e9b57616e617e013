// The words for what the keys say about a verdict as a whole (issue 39), one text for the CLI's
// `Keys:` line, the report and the app.
import type { VerifyVerdict } from './verify-types'

/** The `Keys:` sentence (without the label), or null when the keys say nothing more than the findings. */
export function keysSentence(
  v: Pick<VerifyVerdict, 'no_key_matches' | 'key_missing_from_seq'>,
  fingerprints: string[],
): string | null {
  if (v.no_key_matches)
    return `no row of this chain verifies under the given key(s) (fingerprints ${fingerprints.join(', ')}): a wrong key?`
  if (v.key_missing_from_seq !== undefined)
    return (
      `rows from seq ${v.key_missing_from_seq} on verify under none of the given keys while earlier rows do: ` +
      `a rotated key may be missing from seq ${v.key_missing_from_seq}`
    )
  return null
}
