// Runs that shrink towards the end of a pass: they cover the pieces exactly, in order, each once,
// never grow, and end in single pieces, for any number of pieces and threads.
import { describe, expect, it } from 'vitest'
import { shrinkingRuns } from '../../../src/main/verify/run-sizes'
import type { Place } from '../../../src/main/chain/source/row-source'

/** `n` consecutive pieces of uneven lengths from `from`, as a source's split cuts them. */
function pieces(n: number, from: number, seed: number): Place[] {
  const out: Place[] = []
  let at = from
  for (let i = 0; i < n; i++) {
    const len = 1 + ((seed * 7919 + i * 104729) % 13)
    out.push({ from: at, to: at + len })
    at += len
  }
  return out
}

describe('shrinkingRuns', () => {
  it('covers the pieces exactly, in order, and its runs never grow', () => {
    for (let n = 0; n <= 200; n++)
      for (const threads of [1, 2, 3, 8]) {
        const ps = pieces(n, n * 3, n + threads)
        const runs = shrinkingRuns(ps, threads)
        if (n === 0) {
          expect(runs).toEqual([])
          continue
        }
        expect(runs[0]!.from).toBe(ps[0]!.from)
        expect(runs.at(-1)!.to).toBe(ps.at(-1)!.to)
        for (let i = 1; i < runs.length; i++) expect(runs[i]!.from).toBe(runs[i - 1]!.to)
        // Sizes in pieces: each run starts and ends on piece bounds, and never takes more than the one before.
        const starts = new Map(ps.map((p, i) => [p.from, i]))
        const sizes = runs.map((r) => {
          const a = starts.get(r.from)
          const b = ps.findIndex((p) => p.to === r.to)
          expect(a, `run ${r.from}-${r.to} starts on a piece`).toBeDefined()
          expect(b).toBeGreaterThanOrEqual(a!)
          return b - a! + 1
        })
        for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThanOrEqual(sizes[i - 1]!)
        expect(sizes.at(-1)).toBe(1)
      }
  })

  it('gives two threads a quarter of the pieces first and single pieces at the end', () => {
    const runs = shrinkingRuns(pieces(64, 0, 1), 2)
    const ps = pieces(64, 0, 1)
    expect(runs[0]!.to).toBe(ps[15]!.to) // 64 / 4
    expect(runs.slice(-4).every((r) => ps.some((p) => p.from === r.from && p.to === r.to))).toBe(true)
  })
})
