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

/**
 * Whether an hmac_mismatch run a–b has no link or body break in it, nor at the row after it (a key
 * question, not an edit). That row is sealed by a given key, and its sealed prev_hash names row b's
 * hmac_hash: rows a–b rewritten without a key (hmac_hash recomputed anyhow) break that link, rows a
 * rotated key sealed do not.
 */
function intact(v: VerifyVerdict, a: number, b: number): boolean {
  return !v.findings.some(
    (f) =>
      (f.kind === 'link_mismatch' && f.to_seq >= a && f.from_seq <= b + 1) ||
      (f.kind === 'body_hash_mismatch' && f.to_seq >= a && f.from_seq <= b),
  )
}

/**
 * Runs no key seals that a rotation whose key was not given leaves, other than the tail
 * (keyMissingFrom): the rows before the first key's run (the key used before a rotation), and rows
 * between the runs of two different keys (a key between them). Between two runs of the same key it is
 * an edit, never a missing key.
 */
export function keyGaps(v: VerifyVerdict): { from: number; to: number; at: 'head' | 'between' }[] {
  if (v.cancelled || v.hmac_checked === false || v.key_segments.length === 0) return []
  const segs = v.key_segments
  const out: { from: number; to: number; at: 'head' | 'between' }[] = []
  for (const f of v.findings) {
    if (f.kind !== 'hmac_mismatch' || !intact(v, f.from_seq, f.to_seq)) continue
    if (f.from_seq === v.first_seq && f.to_seq + 1 === segs[0]!.from_seq)
      out.push({ from: f.from_seq, to: f.to_seq, at: 'head' })
    for (let i = 0; i + 1 < segs.length; i++) {
      const a = segs[i]!
      const b = segs[i + 1]!
      if (a.key_index !== b.key_index && f.from_seq === a.to_seq + 1 && f.to_seq + 1 === b.from_seq)
        out.push({ from: f.from_seq, to: f.to_seq, at: 'between' })
    }
  }
  return out
}

/** The `Keys:` sentence (without the label), or null when the keys say nothing more than the findings. */
export function keysSentence(v: VerifyVerdict, fingerprints: string[]): string | null {
  if (v.no_key_matches)
    return `no row of this chain verifies under the given key(s) (fingerprints ${fingerprints.join(', ')}): a wrong key?`
  const said = keyGaps(v).map((g) =>
    g.at === 'head'
      ? `rows seq ${g.from}–${g.to} verify under none of the given keys while later rows do: ` +
        `the key used before the rotation at seq ${g.to + 1} may be missing`
      : `rows seq ${g.from}–${g.to} verify under none of the given keys while the rows on either side do, ` +
        `under different keys: a rotated key may be missing for seq ${g.from}–${g.to}`,
  )
  const from = keyMissingFrom(v)
  if (from !== null)
    said.push(
      `rows from seq ${from} on verify under none of the given keys while earlier rows do: ` +
        `a rotated key may be missing from seq ${from}`,
    )
  return said.length === 0 ? null : said.join('; ')
}
