// The words of the keyless check (`verify --keyless`, run by the engine on every open): what it
// found, and always that the HMACs were not checked. It never says VALID — without the key a forger
// could have rewritten a body together with its canonical_hash, or relinked rows (reference §11);
// only the keyed verify rules that out. Pure functions: unit-tested in keyless.test.ts.
import type { Finding, VerifyVerdict } from '../../../shared/verify-types'
import { counted } from './format'
import { findingLabel } from './verdict'

export const HMAC_NOT_CHECKED = 'HMACs not checked'

/** Where the breaks are: the first few seqs, then how many more. */
export function breakSeqs(findings: Finding[], shown = 3): string {
  const seqs = findings.filter((f) => f.kind !== 'truncated').map((f) => f.from_seq)
  const head = seqs.slice(0, shown).join(', ')
  return seqs.length > shown ? `${head}…` : head
}

/** The card's headline: the breaks found without the key, or that none was. */
export function keylessHeadline(v: VerifyVerdict): string {
  if (v.cancelled)
    return `Keyless check stopped before the end (${counted(v.entries, 'entry', 'entries')} read)`
  const n = v.findings.length
  if (n === 0) return 'Keyless check: no break found'
  const kinds = [...new Set(v.findings.map(findingLabel))]
  const at = breakSeqs(v.findings)
  return `Keyless check: ${n} break${n === 1 ? '' : 's'} (${kinds.join(', ')})${at ? ` at seq ${at}` : ''}`
}

/** What the auditor is told to do next. */
export function keylessAdvice(v: VerifyVerdict, hasKey: boolean): string {
  const what =
    v.findings.length === 0
      ? 'the structure holds without the key, which proves nothing about the seals'
      : 'a break found without the key stands whatever the key'
  return `${HMAC_NOT_CHECKED}: ${what}; ${hasKey ? 'run Verify chain to check the seals' : 'enter a key to verify the seals'}.`
}

/** What a screen reader hears when the check ends. */
export function keylessSentence(v: VerifyVerdict): string {
  if (v.cancelled) return 'Keyless check stopped before the end; HMACs not checked.'
  const n = v.findings.length
  if (n === 0)
    return `Keyless check finished: no break found in ${counted(v.entries, 'entry', 'entries')}; HMACs not checked.`
  const first = v.first_bad_seq !== null ? `, first at seq ${v.first_bad_seq}` : ''
  return `Keyless check finished: ${n} break${n === 1 ? '' : 's'}${first}; HMACs not checked.`
}
