// The reference's replay block (§6.4), the one spelling of it: `bijotel replay` and each line of
// `--batch` print it, the app shows it ("as the CLI prints it") and its fields. Python prints
// `result.original_hash or '(none — …)'` and `result.model_version or '(unknown)'`: truthiness,
// so an empty sealed value shows the placeholder (the engine gives a falsy non-string one as null).
// The sealed values are the audited party's text: every unprintable code point is shown as its
// number (./printable.ts), so a newline in one cannot print a verdict line of its own.
import { printable } from './printable'
import type { ReplayResult } from './replay-types'

export const NO_ORIGINAL_HASH = '(none \u2014 entry has no replay metadata)'
export const UNKNOWN_MODEL = '(unknown)'

/** The original_hash as the block shows it. */
export function originalHashShown(r: ReplayResult): string {
  return r.original_hash ? printable(r.original_hash) : NO_ORIGINAL_HASH
}

/** The model_version as the block shows it. */
export function modelVersionShown(r: ReplayResult): string {
  return r.model_version ? printable(r.model_version) : UNKNOWN_MODEL
}

/** The block's lines, without line ends: head, the four fields, the reason when there is one. */
export function replayBlockLines(seq: number | string, r: ReplayResult): string[] {
  const lines = [
    `=== Replay ${r.match ? 'MATCH' : 'MISMATCH'} (seq=${seq}) ===`,
    `  original_hash:  ${originalHashShown(r)}`,
    `  replay_hash:    ${r.replay_hash}`,
    `  deterministic:  ${r.deterministic ? 'True' : 'False'}`,
    `  model_version:  ${modelVersionShown(r)}`,
  ]
  if (r.reason) lines.push(`  reason:         ${r.reason}`)
  return lines
}
