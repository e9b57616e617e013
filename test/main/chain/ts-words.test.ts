// The timeline and the overview's time range read timestamps as 32-bit halves (ts-words.ts); they
// must give exactly what BigInt arithmetic gives, at the edges of int64, across spans beyond 2^53 ns
// (where doubles round), for spans of a few ns, with invalid rows, filters and every bucket count.
import { describe, expect, it } from 'vitest'
import { TIMELINE_PROVIDERS, type Timeline, type TimelineRequest } from '../../../src/shared/chain-types'
import type { ChainIndex } from '../../../src/main/chain/chain-index'
import { buildTimeline } from '../../../src/main/chain/views'
import { halves, TsWords } from '../../../src/main/chain/ts-words'

const MAX = 2n ** 63n - 1n
const MIN = -(2n ** 63n)

/** The BigInt arithmetic the timeline used before (the oracle). */
function referenceTimeline(idx: ChainIndex, req: TimelineRequest): Timeline {
  const buckets = Math.max(1, Math.min(2000, Math.floor(req.buckets)))
  const providerId = req.provider !== undefined ? idx.providerNames.indexOf(req.provider) : -2
  let lo: bigint | null = req.from_ns !== undefined ? BigInt(req.from_ns) : null
  let hi: bigint | null = req.to_ns !== undefined ? BigInt(req.to_ns) : null
  if (lo === null || hi === null) {
    for (let i = 0; i < idx.rows; i++) {
      if (!idx.tsValid[i]) continue
      const t = idx.ts[i]!
      if (req.from_ns === undefined && (lo === null || t < lo)) lo = t
      if (req.to_ns === undefined && (hi === null || t > hi)) hi = t
    }
  }
  if (lo === null || hi === null || hi < lo) {
    return { from_ns: '0', to_ns: '0', bucket_ns: '0', buckets: [], providers: [] }
  }
  const width = (hi - lo + 1n + BigInt(buckets) - 1n) / BigInt(buckets)
  const counts = new Array<number>(buckets).fill(0)
  const byProvider = Array.from({ length: buckets }, () => new Map<number, number>())
  const seen = new Set<number>()
  for (let i = 0; i < idx.rows; i++) {
    if (!idx.tsValid[i]) continue
    const t = idx.ts[i]!
    if (t < lo || t > hi) continue
    if (providerId !== -2 && idx.provider[i] !== providerId) continue
    const b = Number((t - lo) / width)
    counts[b]!++
    const p = idx.provider[i]!
    seen.add(p)
    byProvider[b]!.set(p, (byProvider[b]!.get(p) ?? 0) + 1)
  }
  // The providers named one by one (round 11): the TIMELINE_PROVIDERS with most rows, ties by name
  // (these names are short: none clipped); the others counted in providers_left.
  const totals = new Map<number, number>()
  for (const m of byProvider) for (const [p, n] of m) totals.set(p, (totals.get(p) ?? 0) + n)
  const name = (p: number): string => idx.providerNames[p]!
  const order = [...seen].sort(
    (a, b) => totals.get(b)! - totals.get(a)! || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0),
  )
  const kept = new Set(order.slice(0, TIMELINE_PROVIDERS))
  const left = order.slice(TIMELINE_PROVIDERS)
  return {
    from_ns: lo.toString(),
    to_ns: hi.toString(),
    bucket_ns: width.toString(),
    providers: [...kept].map(name).sort(),
    ...(left.length > 0
      ? { providers_left: { names: left.length, rows: left.reduce((a, p) => a + totals.get(p)!, 0) } }
      : {}),
    buckets: counts.map((c, b) => {
      const start = lo! + width * BigInt(b)
      const by: Record<string, number> = {}
      for (const [p, n] of byProvider[b]!) if (kept.has(p)) by[idx.providerNames[p]!] = n
      return {
        start_ns: start.toString(),
        end_ns: (start + width - 1n).toString(),
        count: c,
        by_provider: by,
      }
    }),
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function indexOf(ts: bigint[], valid?: (i: number) => boolean): ChainIndex {
  const n = ts.length
  const idx: ChainIndex = {
    rows: n,
    seq: Float64Array.from(ts, (_, i) => i + 1),
    ts: BigInt64Array.from(ts),
    tsValid: Uint8Array.from(ts, (_, i) => ((valid?.(i) ?? true) ? 1 : 0)),
    provider: Uint32Array.from(ts, (_, i) => i % 3),
    model: new Uint32Array(n),
    hasReplay: new Uint8Array(n),
    providerNames: ['anthropic', 'openai', 'mistral'],
    providerKeys: ['anthropic', 'openai', 'mistral'],
    modelNames: ['(none)'],
  }
  // An invalid row keeps ts 0, as the index stores it.
  for (let i = 0; i < n; i++) if (!idx.tsValid[i]) idx.ts[i] = 0n
  return idx
}

/** Timestamps around `center`, spread over `span` ns (a BigInt), with repeats. */
function around(r: () => number, center: bigint, span: bigint, n: number): bigint[] {
  const out: bigint[] = []
  for (let i = 0; i < n; i++) {
    const f = BigInt(Math.floor(r() * 2 ** 30))
    let t = center + (span * f) / 2n ** 30n - span / 2n
    if (t > MAX) t = MAX
    if (t < MIN) t = MIN
    out.push(r() < 0.1 && i > 0 ? out[i - 1]! : t)
  }
  return out
}

/** Rows on, and one ns either side of, bucket starts of the range [lo, hi] cut in `buckets`. */
function onBucketEdges(lo: bigint, hi: bigint, buckets: number): bigint[] {
  const width = (hi - lo + 1n + BigInt(buckets) - 1n) / BigInt(buckets)
  const out = [lo, hi]
  for (let k = 1; k < buckets; k += Math.max(1, Math.floor(buckets / 40))) {
    const start = lo + width * BigInt(k)
    for (const t of [start - 1n, start, start + 1n]) if (t >= lo && t <= hi) out.push(t)
  }
  return out
}

describe('timestamps as 32-bit halves', () => {
  it('rows on the bucket edges of spans where doubles round, and at the top of int64', () => {
    const ranges: [bigint, bigint][] = [
      [MIN, MAX],
      [1_700_000_000_000_000_000n, 1_700_000_000_000_000_000n + 2n ** 60n],
      [-(2n ** 62n), 2n ** 62n + 12_345n],
      [MAX - 3n, MAX],
      [MIN, MIN + 5n],
    ]
    for (const [lo, hi] of ranges) {
      for (const buckets of [1, 3, 60, 200, 2000]) {
        const idx = indexOf(onBucketEdges(lo, hi, buckets))
        expect(buildTimeline(idx, { buckets })).toEqual(referenceTimeline(idx, { buckets }))
      }
    }
  })

  it('halves and comparisons at the edges of int64', () => {
    const values = [
      MIN,
      MIN + 1n,
      -(2n ** 32n),
      -1n,
      0n,
      1n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n + 1n,
      MAX - 1n,
      MAX,
    ]
    const words = new TsWords(BigInt64Array.from(values))
    for (let i = 0; i < values.length; i++) {
      for (const v of values) {
        const [h, l] = halves(v)
        expect(words.below(i, h, l)).toBe(values[i]! < v)
        expect(words.above(i, h, l)).toBe(values[i]! > v)
      }
    }
    const { min, max } = words.extremes(new Uint8Array(values.length).fill(1), values.length)
    expect([values[min], values[max]]).toEqual([MIN, MAX])
  })

  it('extremes skip invalid rows and keep the first of equal values', () => {
    const words = new TsWords(BigInt64Array.from([5n, -7n, 9n, -7n, 9n, 100n]))
    expect(words.extremes(Uint8Array.from([1, 1, 1, 1, 1, 0]), 6)).toEqual({ min: 1, max: 2 })
    expect(words.extremes(new Uint8Array(6), 6)).toEqual({ min: -1, max: -1 })
  })

  it('the timeline counts thousands of providers as BigInt arithmetic does (in a Map beyond 2^21 counters)', () => {
    const r = rng(99)
    const ts = around(r, 1_700_000_000_000_000_000n, 86_400_000_000_000n, 20_000)
    const idx = indexOf(ts, (i) => i % 13 !== 4)
    idx.providerNames = Array.from({ length: 3000 }, (_, p) => `provider-${(p * 7919) % 3000}`)
    idx.provider = Uint32Array.from(ts, (_, i) => (i * 31) % 3000)
    // 60 × 3000 counters fit the typed array; 2000 × 3000 do not.
    for (const buckets of [60, 2000]) {
      expect(buildTimeline(idx, { buckets })).toEqual(referenceTimeline(idx, { buckets }))
    }
  })

  const cases: [string, bigint, bigint][] = [
    ['a day of ns around 1.7e18', 1_700_000_000_000_000_000n, 86_400_000_000_000n],
    ['a year (beyond 2^53 ns)', 1_700_000_000_000_000_000n, 31_536_000_000_000_000n],
    ['the whole int64 range', 0n, 2n ** 64n],
    ['near the top of int64', MAX - 2n ** 40n, 2n ** 41n],
    ['near the bottom of int64', MIN + 2n ** 40n, 2n ** 41n],
    ['around 0, negative included', 0n, 10_000_000_000n],
    ['a few ns', 1_700_000_000_000_000_000n, 7n],
  ]
  for (const [label, center, span] of cases) {
    it(`the timeline equals BigInt arithmetic: ${label}`, () => {
      const r = rng(Number(span % 100_000n) + 1)
      const ts = around(r, center, span, 3000)
      const idx = indexOf(ts, (i) => i % 17 !== 5)
      for (const buckets of [1, 2, 7, 60, 200, 1999, 2000, 5000]) {
        expect(buildTimeline(idx, { buckets })).toEqual(referenceTimeline(idx, { buckets }))
      }
      // Filters: a window inside the range (from, to, both), a provider.
      const sorted = ts.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      const from = sorted[700]!.toString()
      const to = sorted[2100]!.toString()
      for (const req of [
        { buckets: 60, from_ns: from },
        { buckets: 60, to_ns: to },
        { buckets: 60, from_ns: from, to_ns: to },
        { buckets: 60, from_ns: to, to_ns: from },
        { buckets: 33, provider: 'openai' },
      ]) {
        expect(buildTimeline(idx, req)).toEqual(referenceTimeline(idx, req))
      }
    })
  }
})
