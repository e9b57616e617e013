// Timeline buckets → rows for recharts. Pure, unit-tested in chart-data.test.ts.
import type { Timeline } from '../../../shared/chain-types'
import type { RecoveredStatus } from '../../../shared/recovery-types'
import { nsToMs, parseNs } from './format'
import type { ReplayMark } from './replay-marks'

/** A row that a verify finding or an integrity anomaly points at, placed in time. */
export interface Mark {
  seq: number
  ms: number
  ns: string
  /** What flagged it: `verify: body hash mismatch`, `integrity: duplicate`, … */
  kinds: string[]
  severity: 'verify' | 'integrity'
}

/** A recovered row (deleted, or an earlier version) placed in time by its unsealed timestamp. */
export interface RecoveredMark {
  /** rowKey of the row (seq and hmac_hash). */
  key: string
  seq: number | null
  ns: string
  status: RecoveredStatus
  proven: boolean
}

export interface BucketRow {
  i: number
  /** Bucket start / end / middle, ms since epoch. */
  t: number
  tEnd: number
  tMid: number
  count: number
  /** Entries per hour in this bucket. */
  rate: number
  /** Marks in this bucket, and the y position of their glyph (null when none). */
  marks: Mark[]
  mark: number | null
  /** Recovered rows in this bucket, and the y of their glyph (0, on the axis; null when none). */
  recovered: RecoveredMark[]
  rmark: number | null
  /** Replayed entries in this bucket (issue 37), and the y of their glyph (null when none). */
  replays: ReplayMark[]
  pmark: number | null
  /**
   * `p:<provider>` → count, `s:<provider>` → share of the bucket in % (the banded providers only,
   * shareBands); `o:others` → the share of every other provider, when some are folded.
   */
  [key: `p:${string}` | `s:${string}` | `o:${string}`]: number
}

/** Providers with a band of their own in the share chart; a chain may name 100,000 (one per row). */
export const SHARE_BANDS = 12
/** The folded providers' share: a key no provider's can be (those start `s:`). */
export const OTHERS_KEY = 'o:others'

/**
 * The providers drawn as bands: those with the most entries in view (ties by name), at most
 * SHARE_BANDS, in name order; `folded` is how many more there are, drawn as one band. Every
 * provider's entries are counted: a folded one is in the others' band, never left out — those the
 * engine folded already (`providers_left`, at most TIMELINE_PROVIDERS named) as well.
 */
export function shareBands(tl: Timeline | null): { shown: string[]; folded: number } {
  const totals = new Map<string, number>()
  for (const b of tl?.buckets ?? [])
    for (const [p, n] of Object.entries(b.by_provider)) totals.set(p, (totals.get(p) ?? 0) + n)
  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
  const order = [...totals].sort((a, b) => b[1] - a[1] || byName(a[0], b[0]))
  const left = tl?.providers_left?.names ?? 0
  const shown = order.length + left <= SHARE_BANDS ? order : order.slice(0, SHARE_BANDS - 1)
  return { shown: shown.map(([p]) => p).sort(byName), folded: order.length - shown.length + left }
}

/** A band's legend: the provider's name, marked when the engine sent only its start. */
export function bandName(tl: Timeline | null, p: string): string {
  return tl?.providers_clipped?.includes(p) ? `${p}…` : p
}

const NS_PER_HOUR = 3_600_000_000_000

export function providerKey(p: string): `p:${string}` {
  return `p:${p}`
}

export function shareKey(p: string): `s:${string}` {
  return `s:${p}`
}

/** Entries per hour for `count` entries in a bucket `bucketNs` wide. */
export function ratePerHour(count: number, bucketNs: string): number {
  const w = Number(bucketNs)
  return w > 0 ? (count * NS_PER_HOUR) / w : 0
}

/** Index of the bucket holding an ns timestamp, or -1 outside the timeline. */
export function bucketIndexOf(tl: Timeline, ns: string): number {
  const t = parseNs(ns)
  const from = parseNs(tl.from_ns)
  const to = parseNs(tl.to_ns)
  const w = parseNs(tl.bucket_ns)
  if (t === null || from === null || to === null || w === null || w <= 0n || t < from || t > to) return -1
  const i = Number((t - from) / w)
  return Math.min(i, tl.buckets.length - 1)
}

/**
 * The bucket of a recovered row: its timestamp's, or the nearest edge when it lies outside the live
 * chain's span (rows after the live head were written after its last row); -1 when it has none.
 */
export function recoveredBucketOf(tl: Timeline, ns: string): number {
  const i = bucketIndexOf(tl, ns)
  if (i >= 0 || tl.buckets.length === 0) return i
  const t = parseNs(ns)
  const from = parseNs(tl.from_ns)
  if (t === null || from === null) return -1
  return t < from ? 0 : tl.buckets.length - 1
}

function byBucketOf<M extends { ns: string }>(items: M[], at: (ns: string) => number): Map<number, M[]> {
  const out = new Map<number, M[]>()
  for (const m of items) {
    const i = at(m.ns)
    if (i < 0) continue
    const list = out.get(i)
    if (list) list.push(m)
    else out.set(i, [m])
  }
  return out
}

export function timelineRows(
  tl: Timeline | null,
  marks: Mark[] = [],
  recovered: RecoveredMark[] = [],
  replays: ReplayMark[] = [],
): BucketRow[] {
  if (!tl) return []
  const byBucket = byBucketOf(marks, (ns) => bucketIndexOf(tl, ns))
  const recByBucket = byBucketOf(recovered, (ns) => recoveredBucketOf(tl, ns))
  const replayByBucket = byBucketOf(replays, (ns) => bucketIndexOf(tl, ns))
  const bands = shareBands(tl)
  return tl.buckets.map((b, i) => {
    const t = nsToMs(b.start_ns)
    const tEnd = nsToMs(b.end_ns)
    const inBucket = byBucket.get(i) ?? []
    const rec = recByBucket.get(i) ?? []
    const rep = replayByBucket.get(i) ?? []
    const row: BucketRow = {
      i,
      t,
      tEnd,
      tMid: (t + tEnd) / 2,
      count: b.count,
      rate: ratePerHour(b.count, tl.bucket_ns),
      marks: inBucket,
      mark: inBucket.length > 0 ? b.count : null,
      recovered: rec,
      rmark: rec.length > 0 ? 0 : null,
      replays: rep,
      pmark: rep.length > 0 ? b.count : null,
    }
    let rest = b.count
    for (const p of bands.shown) {
      // Own members only: a bucket without a provider named `constructor` holds Object's function.
      const c = Object.hasOwn(b.by_provider, p) ? (b.by_provider[p] ?? 0) : 0
      rest -= c
      row[providerKey(p)] = c
      row[shareKey(p)] = b.count > 0 ? (c / b.count) * 100 : 0
    }
    if (bands.folded > 0) row[OTHERS_KEY] = b.count > 0 ? (rest / b.count) * 100 : 0
    return row
  })
}

export function totalCount(tl: Timeline | null): number {
  return tl ? tl.buckets.reduce((a, b) => a + b.count, 0) : 0
}

/** Brush indices → the time range they cover (null when the whole timeline is selected). */
export function rangeOfIndices(
  tl: Timeline,
  start: number,
  end: number,
): { from_ns: string; to_ns: string } | null {
  const n = tl.buckets.length
  if (n === 0) return null
  const s = Math.max(0, Math.min(start, end))
  const e = Math.min(n - 1, Math.max(start, end))
  if (s === 0 && e === n - 1) return null
  return { from_ns: tl.buckets[s]!.start_ns, to_ns: tl.buckets[e]!.end_ns }
}

/** A time range → the brush indices that cover it on this timeline. */
export function indicesOfRange(
  tl: Timeline,
  range: { from_ns: string; to_ns: string } | null,
): { start: number; end: number } {
  const n = tl.buckets.length
  if (n === 0 || range === null) return { start: 0, end: Math.max(0, n - 1) }
  const from = BigInt(range.from_ns)
  const to = BigInt(range.to_ns)
  let start = 0
  while (start < n - 1 && BigInt(tl.buckets[start]!.end_ns) < from) start++
  let end = n - 1
  while (end > start && BigInt(tl.buckets[end]!.start_ns) > to) end--
  return { start, end }
}

/** Stable colours per provider (both themes): the order of the overview's provider list. */
const PALETTE = [
  '#4e8ff7',
  '#f0a030',
  '#36b37e',
  '#e5534b',
  '#a371f7',
  '#2bb7c4',
  '#d4a72c',
  '#e0679b',
  '#7d8b99',
  '#8fbf3f',
]

export function providerColor(providers: string[], p: string): string {
  const i = providers.indexOf(p)
  return PALETTE[(i < 0 ? providers.length : i) % PALETTE.length]!
}
