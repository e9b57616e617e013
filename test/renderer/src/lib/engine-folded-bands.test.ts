// The engine now names at most TIMELINE_PROVIDERS providers in a timeline and counts the rest in
// `providers_left` (round 11: a chain may name 10^5 providers, each a megabyte). The share chart
// must draw the same bands from that answer as from the whole one: on the old renderer, twelve
// named providers and the rest folded by the engine were drawn as twelve bands with no others' band
// (the shares no longer summing to 100 %). Generated timelines, folded as the engine folds them.
import { describe, expect, it } from 'vitest'
import { TIMELINE_PROVIDERS, type Timeline } from '../../../../src/shared/chain-types'
import { OTHERS_KEY, shareBands, timelineRows } from '../../../../src/renderer/src/lib/chart-data'
import { mulberry32 } from '../../../main/testing/prng'

const HOUR = 3_600_000_000_000n
const T0 = 1_764_000_000_000_000_000n
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function whole(seed: number): Timeline {
  const rnd = mulberry32(seed)
  const providers = 1 + Math.floor(rnd() * 60)
  const buckets = 1 + Math.floor(rnd() * 30)
  const out: Timeline = {
    from_ns: T0.toString(),
    to_ns: '0',
    bucket_ns: HOUR.toString(),
    providers: [],
    buckets: [],
  }
  for (let b = 0; b < buckets; b++) {
    const by = Object.create(null) as Record<string, number>
    let count = 0
    for (let k = Math.floor(rnd() * 40); k > 0; k--) {
      const p = `p${Math.floor(providers * rnd() * rnd())}`
      by[p] = (by[p] ?? 0) + 1
      count++
    }
    out.buckets.push({ start_ns: (T0 + HOUR * BigInt(b)).toString(), end_ns: '0', count, by_provider: by })
  }
  out.to_ns = (T0 + HOUR * BigInt(buckets) - 1n).toString()
  return out
}

/** What the engine sends of `tl`: the TIMELINE_PROVIDERS with most rows (ties by name) named. */
function folded(tl: Timeline): Timeline {
  const totals = new Map<string, number>()
  for (const b of tl.buckets)
    for (const [p, n] of Object.entries(b.by_provider)) totals.set(p, (totals.get(p) ?? 0) + n)
  const order = [...totals].sort((a, b) => b[1] - a[1] || byName(a[0], b[0]))
  const kept = new Set(order.slice(0, TIMELINE_PROVIDERS).map(([p]) => p))
  const left = order.slice(TIMELINE_PROVIDERS)
  return {
    ...tl,
    providers: [...kept].sort(byName),
    ...(left.length > 0
      ? { providers_left: { names: left.length, rows: left.reduce((a, [, n]) => a + n, 0) } }
      : {}),
    buckets: tl.buckets.map((b) => ({
      ...b,
      by_provider: Object.fromEntries(Object.entries(b.by_provider).filter(([p]) => kept.has(p))),
    })),
  }
}

describe('bands drawn from the engine-folded timeline are the whole timeline’s', () => {
  for (let seed = 1; seed <= 40; seed++)
    it(`seed ${seed}`, () => {
      const tl = whole(seed)
      const f = folded(tl)
      expect(shareBands(f)).toEqual(shareBands(tl))
      const a = timelineRows(tl)
      const b = timelineRows(f)
      a.forEach((row, i) => {
        for (const [k, v] of Object.entries(row))
          if (k.startsWith('s:') || k === OTHERS_KEY)
            expect(b[i]![k as `s:${string}`]).toBeCloseTo(v as number, 9)
        expect(Object.keys(b[i]!).sort()).toEqual(Object.keys(row).sort())
      })
    })
})
