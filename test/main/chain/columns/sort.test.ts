// ascending must give exactly what Float64Array.prototype.sort gives: on arrays in order already
// (returned as they are), on large arrays of integers below 2^52 (bucketed), and on everything its
// shortcuts leave to that sort (small arrays, negative, fractional, huge values).
import { describe, expect, it } from 'vitest'
import { ascending } from '../../../../src/main/chain/columns/sort'

const LARGE = 70_000

/** A seeded generator, so a failure names its case. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function expectSortedLike(a: Float64Array): void {
  const before = a.slice()
  const want = a.slice().sort()
  const got = ascending(a)
  // Large arrays are compared by their first difference (a diff of 70,000 numbers is no help).
  const firstDiff = (x: Float64Array, y: Float64Array): number => {
    if (x.length !== y.length) return Math.min(x.length, y.length)
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i]) && !(x[i] === y[i])) return i
    return -1
  }
  // a itself only when it was in order; never changed.
  expect(firstDiff(a, before), 'the input changed').toBe(-1)
  expect(firstDiff(got, want), 'first position unlike the built-in sort').toBe(-1)
}

/** `n` fingerprint-like values: random 52-bit integers, NaNs, repeats, and clusters in one bucket. */
function fingerprints(r: () => number, n: number): Float64Array {
  const a = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const kind = r()
    a[i] =
      kind < 0.1
        ? NaN
        : kind < 0.2 && i > 0
          ? a[Math.floor(r() * i)]!
          : kind < 0.3
            ? 5 * 2 ** 36 + Math.floor(r() * 100) // one crowded bucket: sorted by the built-in sort
            : Math.floor(r() * 2 ** 26) * 2 ** 26 + Math.floor(r() * 2 ** 26)
  }
  return a
}

describe('ascending', () => {
  it('sorts large arrays of 52-bit fingerprints with NaNs, repeats and crowded buckets', () => {
    for (let seed = 1; seed <= 6; seed++) expectSortedLike(fingerprints(rng(seed), LARGE + seed * 1000))
  })

  it('puts values on and next to bucket edges, 0 and 2^52 - 1 in place', () => {
    const r = rng(99)
    const a = fingerprints(r, LARGE)
    const edges = [0, 1, 2 ** 52 - 1, 2 ** 52 - 2]
    for (let k = 1; k < 65536; k += 4099) edges.push(k * 2 ** 36 - 1, k * 2 ** 36, k * 2 ** 36 + 1)
    for (let i = 0; i < edges.length; i++) a[Math.floor(r() * LARGE)] = edges[i]!
    expectSortedLike(a)
  })

  it('leaves negative, fractional, infinite and huge values, and small arrays, to the built-in sort', () => {
    for (const odd of [-1, -(2 ** 40), 0.5, 2 ** 52, 2 ** 60, Infinity, -Infinity]) {
      const a = fingerprints(rng(7), LARGE)
      a[12_345] = odd
      expectSortedLike(a)
      expectSortedLike(Float64Array.from([5, 3, odd, NaN, 9, 2 ** 51, 1, 3]))
    }
    expectSortedLike(fingerprints(rng(8), 1000))
  })

  it('returns arrays in order (NaNs only at the end) as they are, negative seconds included', () => {
    expectSortedLike(Float64Array.from([-5, -5, -1, 0, 3, 1.5e9, 1.5e9, NaN, NaN]))
    expectSortedLike(Float64Array.from({ length: LARGE }, (_, i) => 1.7e9 + Math.floor(i / 3)))
    expectSortedLike(Float64Array.from([1, 2, NaN, 3]))
    expectSortedLike(Float64Array.from([NaN, 1]))
    expectSortedLike(new Float64Array(0))
    expectSortedLike(Float64Array.from([NaN]))
    // Nearly in order (a clock stepping back): sorted, not returned as it is.
    expectSortedLike(Float64Array.from([10, 11, 12, 11, 13, -4]))
    const late = Float64Array.from({ length: LARGE }, (_, i) => i)
    late[LARGE - 1] = 5
    expectSortedLike(late)
  })
})
