// repeated: the merge walk that finds duplicate fingerprints and burst seconds across the workers'
// sorted parts. Held to counting every value in a Map, on parts with repeats inside and across
// them, trailing NaNs (rows without a value), empty parts, infinities and negative zero.
import { describe, expect, it } from 'vitest'
import { repeated } from '../../../src/main/integrity/columns-pass'

function oracle(parts: Float64Array[], min: number): Map<number, number> {
  const counts = new Map<number, number>()
  for (const p of parts) for (const v of p) if (!Number.isNaN(v)) counts.set(v, (counts.get(v) ?? 0) + 1)
  return new Map([...counts].filter(([, c]) => c > min).sort((a, b) => a[0] - b[0]))
}

function sorted(values: number[]): Float64Array {
  // Float64Array sort puts NaN last, as the workers' sorts do.
  return Float64Array.from(values).sort()
}

describe('repeated', () => {
  it('equals counting every value, over 300 seeded sets of parts', () => {
    let seed = 12345
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    let found = 0
    for (let t = 0; t < 300; t++) {
      const k = 1 + Math.floor(next() * 4)
      const range = 1 + Math.floor(next() * 50)
      const parts = Array.from({ length: k }, () =>
        sorted(
          Array.from({ length: Math.floor(next() * 40) }, () => {
            const r = next()
            return r < 0.1 ? NaN : r < 0.12 ? Infinity : r < 0.14 ? -Infinity : Math.floor(next() * range) - 5
          }),
        ),
      )
      for (const min of [0, 1, 3]) {
        const got = repeated(parts, min)
        expect(
          [...got].sort((a, b) => a[0] - b[0]),
          `set ${t}, min ${min}`,
        ).toEqual([...oracle(parts, min)])
        found += got.size
      }
    }
    expect(found).toBeGreaterThan(1000)
  })

  it('takes empty parts, all-NaN parts and no parts', () => {
    expect(repeated([], 0).size).toBe(0)
    expect(repeated([new Float64Array(0), sorted([NaN, NaN])], 0).size).toBe(0)
    expect([...repeated([sorted([NaN, 2, 2]), new Float64Array(0), sorted([2, NaN])], 2)]).toEqual([[2, 3]])
  })

  it('counts -0 and 0 as one value (a Map key is +0)', () => {
    expect([...repeated([sorted([-0, 0]), sorted([0])], 2)]).toEqual([[0, 3]])
  })
})
