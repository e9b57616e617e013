// The table's gap rows laid among the live ones (issue 35), against a brute-force listing of every
// generated chain: live seqs drawn at random (runs missing, single seqs missing, nothing missing),
// edge spans or none, in both seq orders — every display row, every position, every seq.
import { describe, expect, it } from 'vitest'
import type { SeqGap } from '../../../../src/shared/chain-types'
import {
  GapLayout,
  liveness,
  spanAround,
  spanTitle,
  type DisplayRow,
  type GapSpan,
} from '../../../../src/renderer/src/lib/gap-rows'
import { mulberry32 } from '../../../main/testing/prng'

function gapsOf(live: number[]): SeqGap[] {
  const out: SeqGap[] = []
  for (let i = 1; i < live.length; i++)
    if (live[i]! - live[i - 1]! > 1) out.push({ after_seq: live[i - 1]!, before_seq: live[i]!, index: i })
  return out
}

/** The listing as a reader expects it: lead, live rows with a gap row wherever seqs skip, trail. */
function bruteForce(
  live: number[],
  lead: GapSpan | null,
  trail: GapSpan | null,
  desc: boolean,
): DisplayRow[] {
  const out: DisplayRow[] = []
  if (lead) out.push({ kind: 'gap', span: lead })
  live.forEach((s, i) => {
    if (i > 0 && s - live[i - 1]! > 1)
      out.push({ kind: 'gap', span: { from: live[i - 1]! + 1, to: s - 1, after: live[i - 1]!, before: s } })
    out.push({ kind: 'live', index: i })
  })
  if (trail) out.push({ kind: 'gap', span: trail })
  if (!desc) return out
  return out
    .reverse()
    .map((r) => (r.kind === 'live' ? { kind: 'live', index: live.length - 1 - r.index } : r))
}

function chain(rnd: () => number): number[] {
  const out: number[] = []
  let s = 1 + Math.floor(rnd() * 50)
  const n = 1 + Math.floor(rnd() * 60)
  const mode = rnd()
  for (let k = 0; k < n; k++) {
    out.push(s)
    s += mode < 0.2 ? 1 : rnd() < 0.7 ? 1 : 2 + Math.floor(rnd() * (rnd() < 0.5 ? 2 : 40))
  }
  return out
}

describe('GapLayout', () => {
  it('lays every generated listing as a brute-force reading does, in both orders', () => {
    const rnd = mulberry32(35)
    for (let round = 0; round < 60; round++) {
      const live = chain(rnd)
      const first = live[0]!
      const last = live[live.length - 1]!
      const lead: GapSpan | null =
        first > 1 && rnd() < 0.4
          ? { from: 1 + Math.floor(rnd() * (first - 1)), to: first - 1, after: null, before: first }
          : null
      const trail: GapSpan | null =
        rnd() < 0.4
          ? { from: last + 1, to: last + 1 + Math.floor(rnd() * 30), after: last, before: null }
          : null
      const gaps = gapsOf(live)
      for (const desc of [false, true]) {
        const want = bruteForce(live, lead, trail, desc)
        const layout = new GapLayout(live.length, gaps, { lead, trail }, desc)
        expect(layout.count).toBe(want.length)
        want.forEach((w, d) => expect(layout.row(d)).toEqual(w))
        expect(layout.row(-1)).toBeNull()
        expect(layout.row(want.length)).toBeNull()
        // Each listing position's display row shows it.
        for (let i = 0; i < live.length; i++)
          expect(layout.row(layout.displayOf(i))).toEqual({ kind: 'live', index: i })
        // Each seq: the gap row holding it, or none when a live row (or nothing) holds it.
        for (let s = (lead?.from ?? first) - 3; s <= (trail?.to ?? last) + 3; s++) {
          const g = layout.gapOf(s)
          const d = want.findIndex((r) => r.kind === 'gap' && s >= r.span.from && s <= r.span.to)
          if (d < 0) expect(g).toBeNull()
          else expect(g).toEqual({ row: d, span: (want[d] as { span: GapSpan }).span })
        }
        // The pages fetched for any window are positions of the listing.
        for (let d = 0; d < want.length; d++) {
          const i = layout.liveNear(d)
          expect(i).toBeGreaterThanOrEqual(0)
          expect(i).toBeLessThan(live.length)
          const w = want[d]!
          if (w.kind === 'live') expect(i).toBe(w.index)
        }
      }
      // Liveness: exactly the live seqs inside, never outside; unknown without the gaps.
      const set = new Set(live)
      for (let s = first - 3; s <= last + 3; s++) {
        expect(liveness(s, first, last, { gaps, truncated: false })).toBe(set.has(s))
        expect(liveness(s, first, last, null)).toBe(s < first || s > last ? false : null)
        const span = spanAround(s, first, last, gaps, { lead, trail })
        if (set.has(s)) expect(span).toBeNull()
        else {
          expect(span).not.toBeNull()
          expect(s).toBeGreaterThanOrEqual(span!.from)
          expect(s).toBeLessThanOrEqual(span!.to)
          // A span never covers a live seq.
          for (let k = span!.from; k <= span!.to; k++) expect(set.has(k)).toBe(false)
        }
      }
    }
  })

  it('past the last listed gap of a list that stopped short, liveness is not known', () => {
    const gaps = gapsOf([1, 2, 5, 6, 9, 10])
    expect(liveness(7, 1, 10, { gaps: gaps.slice(0, 1), truncated: true })).toBeNull()
    expect(liveness(3, 1, 10, { gaps: gaps.slice(0, 1), truncated: true })).toBe(false)
    expect(liveness(2, 1, 10, { gaps: gaps.slice(0, 1), truncated: true })).toBe(true)
  })

  it('outside the live chain and the spans the evidence names, only the seq asked for', () => {
    expect(spanAround(500, 1, 240, [], { lead: null, trail: null })).toEqual({
      from: 500,
      to: 500,
      after: 240,
      before: null,
    })
    expect(spanTitle({ from: 41, to: 41, after: 40, before: 42 })).toBe('seq 41 missing')
    expect(spanTitle({ from: 253, to: 260, after: 252, before: 261 })).toBe('seqs 253–260 missing')
  })
})
