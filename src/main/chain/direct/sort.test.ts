// ascending must give exactly what Float64Array.prototype.sort gives, on the inputs its shortcuts
// take (in order already, integers below 2^52) and on those they must leave to that sort.
import { describe, expect, it } from 'vitest'
import { ascending } from './sort'

/** A seeded generator, so a failure names its case. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function expectSortedLike(a: Float64Array): void {
  const want = Array.from(a.slice().sort())
  const before = a.slice()
  const got = ascending(a)
  // a itself only when it was in order; never changed.
  expect(a).toEqual(before)
  if (got === a) expect(Array.from(a.slice().sort())).toEqual(Array.from(a))
  expect(got.length).toBe(a.length)
  // Element by element with ===-semantics for numbers and NaN at the same places.
  expect(Array.from(got).map((x) => (Number.isNaN(x) ? 'NaN' : x))).toEqual(
    want.map((x) => (Number.isNaN(x) ? 'NaN' : x)),
  )
}

describe('ascending', () => {
  it('sorts 52-bit fingerprints with NaNs and duplicates as the built-in sort does', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed)
      const n = Math.floor(r() * 3000)
      const a = new Float64Array(n)
      for (let i = 0; i < n; i++) {
        const kind = r()
        a[i] =
          kind < 0.1
            ? NaN
            : kind < 0.2 && i > 0
              ? a[Math.floor(r() * i)]!
              : kind < 0.3
                ? Math.floor(r() * 2 ** 13) // shares the upper digits: passes are skipped
                : Math.floor(r() * 2 ** 26) * 2 ** 26 + Math.floor(r() * 2 ** 26)
      }
      expectSortedLike(a)
    }
  })

  it('takes the edges of every 13-bit digit and of 2^52', () => {
    const edges: number[] = [0, 1, 2 ** 52 - 1, 2 ** 52 - 2, NaN]
    for (let d = 0; d < 4; d++) {
      const b = 2 ** (13 * d)
      edges.push(b, b - 1, b * 8191, b * 8191 + (b > 1 ? b - 1 : 0), b * 4096)
    }
    const a = Float64Array.from([...edges, ...edges.slice().reverse()])
    expectSortedLike(a)
    // All but one value share a digit: that pass must still run.
    for (let d = 0; d < 3; d++) {
      const x = 2 ** (13 * (d + 1))
      expectSortedLike(Float64Array.from([x, x + 5 * 2 ** (13 * d), x]))
    }
  })

  it('leaves negative, fractional, infinite and huge values to the built-in sort', () => {
    for (const odd of [-1, -(2 ** 40), 0.5, 2 ** 52, 2 ** 60, Infinity, -Infinity]) {
      const a = Float64Array.from([5, 3, odd, NaN, 9, 2 ** 51, 1, 3])
      expectSortedLike(a)
    }
  })

  it('copies arrays already in order (NaNs only at the end), negative seconds included', () => {
    expectSortedLike(Float64Array.from([-5, -5, -1, 0, 3, 1.5e9, 1.5e9, NaN, NaN]))
    expectSortedLike(Float64Array.from([1, 2, NaN, 3]))
    expectSortedLike(Float64Array.from([NaN, 1]))
    expectSortedLike(new Float64Array(0))
    expectSortedLike(Float64Array.from([NaN]))
    // Nearly in order (a clock stepping back): sorted, not copied.
    expectSortedLike(Float64Array.from([10, 11, 12, 11, 13, -4]))
  })
})
