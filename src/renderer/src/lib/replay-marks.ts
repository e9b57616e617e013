// The timeline's marks of replayed entries (issue 37): the session's replay checks — a batch's lines
// and the single-entry checker's — by what they came to. A mismatch of a seeded (deterministic) call
// is kept apart from one without a seed, where the reference expects drift (§11.7); a comparison with
// a row that does not verify proves nothing either way (its output_hash may be the forger's) and is
// drawn as such, never as a match. Pure, unit-tested.
import type { ReplayCheck } from '../../../shared/replay-types'

export type ReplayMarkKind = 'matched' | 'mismatch' | 'drift' | 'unverified'

export interface ReplayMark {
  seq: number
  ns: string
  kind: ReplayMarkKind
}

/** What a check shows on the timeline; null when there was nothing to compare (no replay metadata). */
export function replayKind(c: ReplayCheck): ReplayMarkKind | null {
  if (c.result.original_hash === null) return null
  if (c.row_verified === false) return 'unverified'
  if (c.result.match) return 'matched'
  return c.result.deterministic ? 'mismatch' : 'drift'
}

export const REPLAY_KIND_LABELS: Record<ReplayMarkKind, string> = {
  matched: 'replay matched',
  mismatch: 'replay mismatch (seeded)',
  drift: 'replay differs (no seed: drift expected)',
  unverified: 'compared with a row that does not verify (proves nothing)',
}

/** The legend's order, and the order a bucket's glyph takes the worst of its marks from. */
export const REPLAY_KINDS: readonly ReplayMarkKind[] = ['mismatch', 'unverified', 'drift', 'matched']

/** The kind a bucket's glyph shows: the worst of its marks (in REPLAY_KINDS' order). */
export function worstKind(marks: readonly { kind: ReplayMarkKind }[]): ReplayMarkKind | null {
  let best: number | null = null
  for (const m of marks) {
    const r = REPLAY_KINDS.indexOf(m.kind)
    if (best === null || r < best) best = r
  }
  return best === null ? null : REPLAY_KINDS[best]!
}

/** How many marks of each kind. */
export function countKinds(marks: readonly { kind: ReplayMarkKind }[]): Record<ReplayMarkKind, number> {
  const out: Record<ReplayMarkKind, number> = { matched: 0, mismatch: 0, drift: 0, unverified: 0 }
  for (const m of marks) out[m.kind]++
  return out
}

/**
 * The marks of the latest check of each seq, placed at the times the engine gave (`times`: seq →
 * timestamp_ns; a seq with none is not drawn — never at a guessed time).
 */
export function replayMarks(
  checks: readonly ReplayCheck[],
  times: ReadonlyMap<number, string | null>,
): ReplayMark[] {
  const latest = new Map<number, ReplayCheck>()
  for (const c of checks) latest.set(c.seq, c)
  const out: ReplayMark[] = []
  for (const [seq, c] of latest) {
    const kind = replayKind(c)
    const ns = times.get(seq)
    if (kind !== null && ns !== undefined && ns !== null) out.push({ seq, ns, kind })
  }
  return out.sort((a, b) => a.seq - b.seq)
}
