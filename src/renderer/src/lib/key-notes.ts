// What a keyed verdict says about the keys themselves (issue 35): a BROKEN verdict whose HMACs no
// key reproduces is first a question about the key, and the screen says so beside the verdict in
// the CLI's words, so an auditor does not report forgery for a wrong or missing rotated key. Only
// what the verdict proves is said: no key given reproduces these rows; never "the key is wrong".
import type { VerifyVerdict } from '../../../shared/verify-types'

/** One numbering everywhere, the CLI's: key #1 is the first key given. */
export function keyLabel(index: number): string {
  return `key #${index + 1}`
}

export interface KeyNote {
  kind: 'no_key_matches' | 'unsealed_tail' | 'unsealed_head'
  text: string
}

/** The CLI's sentence (src/main/cli/commands/verify.ts) for a range no candidate key reproduces. */
export const NO_KEY_MATCHES =
  'No candidate key reproduces any HMAC in this range: wrong secret, or every row resealed.'

export function keyNotes(v: VerifyVerdict, keyCount: number): KeyNote[] {
  const notes: KeyNote[] = []
  if (v.cancelled || v.entries === 0 || keyCount === 0) return notes
  const carried = (v as { no_key_matches?: unknown }).no_key_matches
  if (v.key_segments.length === 0 || carried === true) {
    notes.push({
      kind: 'no_key_matches',
      text: `${NO_KEY_MATCHES} Check that the key${keyCount > 1 ? 's are' : ' is'} this chain’s before reading it as tampering.`,
    })
    return notes
  }
  // Rows from the first that no key seals, before rows a key does: an earlier key not given.
  const first = v.key_segments[0]!
  const head = v.findings.find(
    (f) => f.kind === 'hmac_mismatch' && f.from_seq === v.first_seq && f.to_seq < first.from_seq,
  )
  if (head) {
    notes.push({
      kind: 'unsealed_head',
      text:
        `No candidate key reproduces seq ${head.from_seq}–${head.to_seq}, while ${keyLabel(first.key_index)} ` +
        `seals from seq ${first.from_seq}: an earlier key not given yet (add it with “+ rotated key”), or these rows resealed.`,
    })
  }
  // Rows up to the head that no key seals, after rows a key does seal: what a rotation whose new
  // key was not given looks like (and what resealed rows look like: both are said).
  const last = v.key_segments[v.key_segments.length - 1]!
  const tail = v.findings.find(
    (f) => f.kind === 'hmac_mismatch' && f.from_seq > last.to_seq && f.to_seq === v.last_seq,
  )
  if (tail) {
    notes.push({
      kind: 'unsealed_tail',
      text:
        `No candidate key reproduces seq ${tail.from_seq}–${tail.to_seq}, while ${keyLabel(last.key_index)} ` +
        `sealed up to seq ${last.to_seq}: a rotated key not given yet (add it with “+ rotated key”), or these rows resealed.`,
    })
  }
  return notes
}
