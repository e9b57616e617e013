// The single-entry replay verdict as text (the reference's block, §6.4) and JSON, and its exit code:
// `bijotel replay --seq` and each line of `bijotel replay --batch` print it the same way.
import type { ReplayCheck, ReplayResult } from '../../shared/replay-types'
import { referenceReplayFields } from './verifier'
import { printable } from '../../shared/printable'
import { replayBlockLines } from '../../shared/replay-lines'

/** `bijotel replay`'s exit codes for a verdict (its help lists them all: cli/commands/replay-info.ts). */
const REPLAY_EXIT = { match: 0, mismatch: 3 } as const

/** The ReplayResult fields in the reference's order, plus the extra checks only when they ran. */
export function replayJson(
  check: ReplayCheck,
  extras: { row: boolean; prompt: boolean },
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...referenceReplayFields(check.result) }
  // A row found not to verify is said even without a key (a keyless check found its break).
  if (extras.row || check.row_verified === false) {
    out['row_verified'] = check.row_verified
    out['row_detail'] = check.row_detail
  }
  if (extras.prompt) {
    out['prompt_match'] = check.prompt_match
    out['prompt_detail'] = check.prompt_detail
  }
  return out
}

/**
 * `POST /replay/verify`'s answer: the reference's six fields. Its clients read `match` alone, so a
 * match against a row that does not verify (under the server's keys, or a break seen without one)
 * is answered `match: false` with the row's words as the reason: the sealed output_hash it equals
 * may be the forger's (reference §11.7).
 */
export function referenceReplayAnswer(check: ReplayCheck): ReplayResult {
  const fields = referenceReplayFields(check.result)
  if (!fields.match || check.row_verified !== false) return fields
  return {
    ...fields,
    match: false,
    reason: `the output hash equals the sealed output_hash, but ${check.row_detail.replace(/^row /, 'the row ')}: a match against it proves nothing`,
  }
}

/** The reference's text block, then our lines for the checks that were asked for. */
export function replayText(
  check: ReplayCheck,
  extras: { row: boolean; prompt: boolean; raw: boolean },
): string {
  const r = check.result
  const lines = replayBlockLines(check.seq, r)
  if (extras.raw)
    lines.push(
      `  input:          raw bytes of ${printable(check.source.name ?? '?')} (${check.source.bytes} bytes, no newline conversion)`,
    )
  if (extras.row || check.row_verified === false) lines.push(`  row:            ${check.row_detail}`)
  if (extras.prompt) lines.push(`  prompt:         ${check.prompt_detail ?? ''}`)
  if (r.match && (check.row_verified === false || check.prompt_match === false)) {
    lines.push('  WARNING: the output matches, but the evidence around it does not hold (see above); exit 3')
  }
  return lines.join('\n') + '\n'
}

export function replayExit(check: ReplayCheck): number {
  if (!check.result.match) return REPLAY_EXIT.mismatch
  if (check.row_verified === false || check.prompt_match === false) return REPLAY_EXIT.mismatch
  return REPLAY_EXIT.match
}
