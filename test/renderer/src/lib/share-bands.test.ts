// The provider share chart with a chain that names very many providers (one per row: 100,000) and
// extreme bucket layouts. Every bucket's row held a count and a share for EVERY provider of the
// view (buckets × providers numbers: 200 × 100,000 = 20 million, and as many recharts bands) — the
// page froze. Now at most SHARE_BANDS providers get bands (the most entries in view) and the rest
// are one band whose share is what they hold: nothing is left out, nothing unbounded. Generated
// timelines (provider counts from 1 to 100,000, one bucket, empty buckets, hostile names).
import { describe, expect, it } from 'vitest'
import type { Timeline } from '../../../../src/shared/chain-types'
import {
  OTHERS_KEY,
  SHARE_BANDS,
  shareBands,
  shareKey,
  timelineRows,
} from '../../../../src/renderer/src/lib/chart-data'
import { mulberry32 } from '../../../main/testing/prng'

const HOUR = 3_600_000_000_000n
const T0 = 1_764_000_000_000_000_000n

/** A timeline of `buckets` buckets over `providers` provider names, `perBucket` of them in each. */
function generated(seed: number, buckets: number, providers: number, perBucket: number): Timeline {
  const rnd = mulberry32(seed)
  const names = Array.from({ length: providers }, (_, i) =>
    i % 97 === 0 ? ['__proto__', 'constructor', '\u202eevil', ''][i % 4]! + i : `p${i}`,
  )
  const used = new Set<string>()
  const out: Timeline = {
    from_ns: T0.toString(),
    to_ns: (T0 + HOUR * BigInt(buckets) - 1n).toString(),
    bucket_ns: HOUR.toString(),
    providers: [],
    buckets: [],
  }
  for (let b = 0; b < buckets; b++) {
    const by = Object.create(null) as Record<string, number>
    let count = 0
    if (rnd() > 0.1)
      for (let k = 0; k < perBucket; k++) {
        const p = names[Math.floor(rnd() * providers)]!
        const n = 1 + Math.floor(rnd() * 5)
        by[p] = (by[p] ?? 0) + n
        count += n
        used.add(p)
      }
    out.buckets.push({
      start_ns: (T0 + HOUR * BigInt(b)).toString(),
      end_ns: (T0 + HOUR * BigInt(b + 1) - 1n).toString(),
      count,
      by_provider: by,
    })
  }
  out.providers = [...used].sort()
  return structuredClone(out)
}

describe('share bands', () => {
  const shapes: [number, number, number][] = [
    [1, 1, 1],
    [1, 100_000, 2000],
    [200, 100_000, 500],
    [50, 13, 20],
    [50, 12, 20],
    [2000, 3, 2],
  ]
  for (const [buckets, providers, perBucket] of shapes)
    it(`${buckets} buckets, ${providers} providers: bounded rows, shares 100 % with nothing left out`, () => {
      const tl = generated(buckets * 7 + providers, buckets, providers, perBucket)
      const start = performance.now()
      const rows = timelineRows(tl)
      const bands = shareBands(tl)
      expect(performance.now() - start).toBeLessThan(5000)
      expect(bands.shown.length).toBeLessThanOrEqual(SHARE_BANDS)
      expect(bands.shown.length + bands.folded).toBe(tl.providers.length)
      if (tl.providers.length <= SHARE_BANDS) expect(bands.folded).toBe(0)
      rows.forEach((row, i) => {
        const b = tl.buckets[i]!
        expect(Object.keys(row).length).toBeLessThan(20 + 2 * SHARE_BANDS)
        let sum = 0
        for (const p of bands.shown) sum += row[shareKey(p)]!
        if (bands.folded > 0) sum += row[OTHERS_KEY]!
        for (const v of Object.values(row)) if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true)
        if (b.count > 0) expect(sum).toBeCloseTo(100, 6)
        else expect(sum).toBe(0)
      })
    })

  it('the providers with most entries in view are the bands', () => {
    const tl = generated(9, 40, 500, 200)
    const totals = new Map<string, number>()
    for (const b of tl.buckets)
      for (const [p, n] of Object.entries(b.by_provider)) totals.set(p, (totals.get(p) ?? 0) + n)
    const { shown } = shareBands(tl)
    const least = Math.min(...shown.map((p) => totals.get(p)!))
    const folded = [...totals].filter(([p]) => !shown.includes(p))
    for (const [, n] of folded) expect(n).toBeLessThanOrEqual(least)
  })
})
