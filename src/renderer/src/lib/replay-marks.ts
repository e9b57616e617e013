// The timeline's marks of replayed entries (issue 37): the session's replay checks — a batch's lines
// and the single-entry checker's — by what they came to. A mismatch of a seeded (deterministic) call
// is kept apart from one without a seed, where the reference expects drift (§11.7). Pure, unit-tested.
import type { ReplayCheck } from '../../../shared/replay-types'

export type ReplayMarkKind = 'matched' | 'mismatch' | 'drift'

export interface ReplayMark {
  seq: number
  ns: string
  kind: ReplayMarkKind
}

/** What a check shows on the timeline; null when there was nothing to compare (no replay metadata). */
export function replayKind(c: ReplayCheck): ReplayMarkKind | null {
  if (c.result.original_hash === null) return null
  if (c.result.match) return 'matched'
  return c.result.deterministic ? 'mismatch' : 'drift'
}

export const REPLAY_KIND_LABELS: Record<ReplayMarkKind, string> = {
  matched: 'replay matched',
  mismatch: 'replay mismatch (seeded)',
  drift: 'replay differs (no seed: drift expected)',
}

/** The kind a bucket's glyph shows: the worst of its marks (a seeded mismatch before drift before a match). */
export function worstKind(marks: readonly { kind: ReplayMarkKind }[]): ReplayMarkKind | null {
  let out: ReplayMarkKind | null = null
  for (const m of marks) {
    if (m.kind === 'mismatch') return 'mismatch'
    if (m.kind === 'drift' || out === null) out = m.kind
  }
  return out
}

/** How many marks of each kind. */
export function countKinds(marks: readonly { kind: ReplayMarkKind }[]): Record<ReplayMarkKind, number> {
  const out: Record<ReplayMarkKind, number> = { matched: 0, mismatch: 0, drift: 0 }
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
