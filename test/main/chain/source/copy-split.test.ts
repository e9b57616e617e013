// The copy's runs (CopySource.split, issue 36): cut unevenly so that a later run, which first steps
// past every row before it, costs about what an earlier one does — but always every position once,
// in order, the last run reading to the end of the scan whatever the count said.
import { describe, expect, it } from 'vitest'
import { CopySource } from '../../../../src/main/chain/source/copy-source'
import type { Place } from '../../../../src/main/chain/source/row-source'

const split = (place: Place, n: number): Place[] => CopySource.prototype.split.call(null, place, n)

describe('CopySource.split', () => {
  it('covers every position once, in order, the last run open-ended; earlier runs no shorter', () => {
    for (const from of [0, 7]) {
      for (const len of [0, 1, 2, 3, 5, 10, 97, 1000, 50_000, 1_000_000]) {
        for (let n = 1; n <= 16; n++) {
          const runs = split({ from, to: from + len }, n)
          const what = `from ${from}, ${len} rows, ${n} runs`
          expect(runs.length, what).toBeGreaterThanOrEqual(1)
          expect(runs.length, what).toBeLessThanOrEqual(Math.max(1, Math.min(n, len)))
          expect(runs[0]!.from, what).toBe(from)
          expect(runs.at(-1)!.to, what).toBe(Infinity)
          for (let i = 1; i < runs.length; i++) {
            expect(runs[i]!.from, what).toBe(runs[i - 1]!.to)
            expect(runs[i - 1]!.to, what).toBeGreaterThan(runs[i - 1]!.from)
          }
          const lens = runs.slice(0, -1).map((r) => r.to - r.from)
          lens.push(from + len - runs.at(-1)!.from)
          for (let i = 1; i < lens.length; i++) expect(lens[i]!, what).toBeLessThanOrEqual(lens[i - 1]! + 1)
        }
      }
    }
  })

  it('two runs over a million rows: 52.6 % and 47.4 %', () => {
    expect(split({ from: 0, to: 1_000_000 }, 2)).toEqual([
      { from: 0, to: 526_315 },
      { from: 526_315, to: Infinity },
    ])
  })
})
