// F12 payload drift for the app: each dimension over time per provider/model, anomalies marked.
// The values are the reference's (§8, ./dimensions), the judgement its rule (z-score and IQR against
// a baseline of `window` values, both must fire; fewer than 5 values: no baseline): each group's
// values are taken in seq order in blocks of `window`, and every value of a block is judged against
// the block before it — the CLI's "last 50 against the window before them", carried along the whole
// chain in one streamed pass (memory: one block per group and dimension, plus the buckets).
// Every row is judged whatever its timestamp_ns says (the column is outside the MAC, reference §3.2):
// a row's time, for its bucket and a chosen range, is its body's sealed end_time_ns, and only where
// the body seals none the column's, said so (`time_note`, `time_unsealed`).
import type {
  DriftBucket,
  DriftDimension,
  DriftGroup,
  DriftSeries,
  DriftSeriesAnomaly,
  DriftBaseline,
} from '../../shared/drift-types'
import type { RowSource } from '../chain/source/row-source'
import { bytesOf, streamRows } from '../chain/source/stream'
import { positionOfSeq, timestampExtremes, type ChainIndex } from '../chain/chain-index'
import { NO_MODEL } from '../chain/columns/types'
import { pyFormatTime } from '../python/py-body'
import {
  attributesPy,
  dimensionValue,
  DIMENSIONS,
  emptyTally,
  noValueNote,
  parseBodyPy,
  tallyNoValue,
  type NoValueTally,
} from './dimensions'
import { baselineOf, score } from './stats'

export interface DriftSeriesOptions {
  buckets: number
  window: number
  zThreshold: number
  dimensions?: readonly DriftDimension[]
  provider?: string
  model?: string
  /** Inclusive ns bounds (default: the chain's first and last timestamps). */
  fromNs?: bigint
  toNs?: bigint
  /** Anomalies listed per group and dimension (more are counted, not listed). */
  maxAnomalies?: number
  signal?: { aborted: boolean }
  onProgress?: (done: number, total: number) => void
}

/** One time bucket's values of a track. */
interface Cell {
  count: number
  sum: number
  min: number
  max: number
}

/**
 * The groups charted with their buckets and anomalies: the most rows first. A chain names as many
 * provider/model pairs as it has rows (an insider's 10,000-row chain, each row its own model), and
 * every group charted is six charts in the panel and 6 × `buckets` bucket records in the answer:
 * 10,000 groups took 1.5 GB and froze the page. The rest are counted (`omitted`), never dropped.
 */
export const MAX_CHARTED_GROUPS = 24

interface Track {
  dimension: DriftDimension
  points: number
  /** Bucket index → its values' figures: only buckets that hold a value (memory follows the rows). */
  cells: Map<number, Cell>
  block: number[]
  baseline: DriftBaseline | null
  anomalies: DriftSeriesAnomaly[]
  found: number
  /** Values scored against a baseline with spread (both tests could fire), and against one without. */
  judged: number
  flat: number
  none: NoValueTally
}

interface Group {
  provider: string
  model: string | null
  rows: number
  tracks: Track[]
}

export async function driftSeries(
  src: RowSource,
  idx: ChainIndex,
  opts: DriftSeriesOptions,
): Promise<DriftSeries> {
  const dims = opts.dimensions ?? DIMENSIONS
  const nb = Math.max(1, Math.floor(opts.buckets))
  const maxListed = opts.maxAnomalies ?? 500
  const providerId = opts.provider !== undefined ? idx.providerNames.indexOf(opts.provider) : -2
  const modelId = opts.model !== undefined ? idx.modelNames.indexOf(opts.model) : -2
  const body = src.col('canonical_body')
  // A range chosen by the caller selects rows by time; without one every row is judged, whatever
  // its time says (timestamp_ns is unsealed: reference §3.2), and the span only places the buckets.
  const ranged = opts.fromNs !== undefined || opts.toNs !== undefined
  // Without a range the chart's span is that of the times drawn — each row's sealed end time, else
  // (said in time_note) its column — found by a first pass: the span of the timestamp_ns column let
  // an insider's one row "years away" squeeze every sealed time into one bucket, or leave rows with
  // sealed times outside the span, uncharted. A chosen range's ends are the caller's.
  const ext = ranged
    ? timestampExtremes(idx)
    : await drawnTimeExtremes(src, idx, body, providerId, modelId, opts.signal)
  const lo = opts.fromNs ?? ext.lo
  const hi = opts.toNs ?? ext.hi
  const empty: DriftSeries = {
    from_ns: '0',
    to_ns: '0',
    bucket_ns: '0',
    window: opts.window,
    z_threshold: opts.zThreshold,
    groups: [],
    anomaly_count: 0,
  }
  if (ranged && lo !== null && hi !== null && hi < lo) return empty
  // No integer timestamp_ns anywhere (the column is the writer's to blank): nothing is charted, and
  // every row is still judged.
  const charted = lo !== null && hi !== null
  const from = lo ?? 0n
  const to = hi ?? 0n
  const width = charted ? (to - from + 1n + BigInt(nb) - 1n) / BigInt(nb) : 0n
  if (providerId === -1 || modelId === -1) return { ...empty, from_ns: from.toString(), to_ns: to.toString() }
  const times = { unsealed: 0, none: 0, outside: 0 }

  // One key per (provider, model) pair of the index's Uint32 ids (no product of the two: that is
  // exact only while the ids are small, and a chain names as many of each as it has rows).
  const groups = new Map<string, Group>()
  const groupOf = (pos: number): Group => {
    const p = idx.provider[pos]!
    const m = idx.model[pos]!
    const key = `${p},${m}`
    let g = groups.get(key)
    if (!g) {
      const model = idx.modelNames[m]!
      g = {
        provider: idx.providerNames[p]!,
        model: model === NO_MODEL ? null : model,
        rows: 0,
        tracks: dims.map((dimension) => ({
          dimension,
          points: 0,
          cells: new Map(),
          block: [],
          baseline: null,
          anomalies: [],
          found: 0,
          judged: 0,
          flat: 0,
          none: emptyTally(),
        })),
      }
      groups.set(key, g)
    }
    return g
  }

  await streamRows(
    src,
    {
      // A row's time is its body's sealed end time, else the index's timestamp_ns (unsealed).
      columns: ['canonical_body'],
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
    (r) => {
      const seq = r.rowid
      const pos = positionOfSeq(idx, seq)
      if (pos === null) return
      if (providerId !== -2 && idx.provider[pos] !== providerId) return
      if (modelId !== -2 && idx.model[pos] !== modelId) return
      const parsed = parseBodyPy(bytesOf(r, body))
      const attrs = attributesPy(parsed)
      if (attrs === null) return
      // The row's time: its sealed end time, else the unsealed column, else none.
      const sealed = sealedTimeNs(parsed)
      const ts = sealed ?? (idx.tsValid[pos] ? idx.ts[pos]! : null)
      const inSpan = ts !== null && charted && ts >= from && ts <= to
      if (ranged && !inSpan) return
      if (sealed === null) {
        if (ts === null) times.none++
        else times.unsealed++
      } else if (!inSpan) times.outside++
      const g = groupOf(pos)
      g.rows++
      const b = inSpan ? Math.min(nb - 1, Number((ts - from) / width)) : -1
      for (const t of g.tracks) {
        const v = dimensionValue(attrs, t.dimension)
        if (v === null) {
          tallyNoValue(t.none, attrs, t.dimension)
          continue
        }
        t.points++
        const c = t.cells.get(b)
        if (b < 0) {
          // Judged below, not charted: the row has no time inside the span.
        } else if (c === undefined) t.cells.set(b, { count: 1, sum: v, min: v, max: v })
        else {
          c.count++
          c.sum += v
          if (v < c.min) c.min = v
          if (v > c.max) c.max = v
        }
        if (t.baseline) {
          if (t.baseline.stdev > 0 && t.baseline.iqr > 0) t.judged++
          else t.flat++
          const s = score(v, t.baseline, opts.zThreshold)
          if (s.zTriggered && s.iqrTriggered) {
            t.found++
            if (t.anomalies.length < maxListed)
              t.anomalies.push({
                seq,
                timestamp: ts === null ? '(no time)' : pyFormatTime(ts),
                timestamp_ns: ts === null ? '' : ts.toString(),
                ...(sealed === null && ts !== null ? { time_unsealed: true as const } : {}),
                dimension: t.dimension,
                value: v,
                baseline_mean: t.baseline.mean,
                z_score: s.z,
                iqr_distance: s.iqrDistance,
                method_triggered: 'both',
                severity: 'anomaly',
              })
          }
        }
        t.block.push(v)
        if (t.block.length >= opts.window) {
          t.baseline = baselineOf(t.block)
          t.block = []
        }
      }
    },
  )

  let total = 0
  const ranked = [...groups.values()].sort(
    (a, b) =>
      b.rows - a.rows || a.provider.localeCompare(b.provider) || (a.model ?? '').localeCompare(b.model ?? ''),
  )
  const omitted = { groups: 0, rows: 0, anomalies: 0 }
  for (const g of ranked.slice(MAX_CHARTED_GROUPS)) {
    omitted.groups++
    omitted.rows += g.rows
    for (const t of g.tracks) omitted.anomalies += t.found
  }
  total += omitted.anomalies
  const out: DriftGroup[] = ranked.slice(0, MAX_CHARTED_GROUPS).map((g) => ({
    provider: g.provider,
    model: g.model,
    rows: g.rows,
    dimensions: g.tracks.map((t) => {
      total += t.found
      const buckets: DriftBucket[] = Array.from({ length: nb }, (_, k) => {
        const c = t.cells.get(k)
        return {
          start_ns: (from + width * BigInt(k)).toString(),
          count: c?.count ?? 0,
          mean: c ? c.sum / c.count : null,
          min: c ? c.min : null,
          max: c ? c.max : null,
        }
      })
      return {
        dimension: t.dimension,
        points: t.points,
        buckets,
        anomalies: t.anomalies,
        anomalies_truncated: t.found > t.anomalies.length,
        ...noteOf(t),
      }
    }),
  }))
  const timeNote = timeNoteOf(times, ranged)
  return {
    from_ns: from.toString(),
    to_ns: to.toString(),
    bucket_ns: width.toString(),
    window: opts.window,
    z_threshold: opts.zThreshold,
    groups: out,
    anomaly_count: total,
    ...(omitted.groups > 0 ? { omitted } : {}),
    ...(timeNote === null ? {} : { time_note: timeNote }),
  }
}

/**
 * The earliest and latest time a row charted is drawn at (its sealed end time, else its column),
 * over the rows the series reads (the provider/model asked for, a body with attributes): a pass
 * that keeps two numbers.
 */
async function drawnTimeExtremes(
  src: RowSource,
  idx: ChainIndex,
  body: number,
  providerId: number,
  modelId: number,
  signal: { aborted: boolean } | undefined,
): Promise<{ lo: bigint | null; hi: bigint | null }> {
  let lo: bigint | null = null
  let hi: bigint | null = null
  if (providerId === -1 || modelId === -1) return { lo, hi }
  await streamRows(src, { columns: ['canonical_body'], ...(signal ? { signal } : {}) }, (r) => {
    const pos = positionOfSeq(idx, r.rowid)
    if (pos === null) return
    if (providerId !== -2 && idx.provider[pos] !== providerId) return
    if (modelId !== -2 && idx.model[pos] !== modelId) return
    const parsed = parseBodyPy(bytesOf(r, body))
    if (attributesPy(parsed) === null) return
    const ts = sealedTimeNs(parsed) ?? (idx.tsValid[pos] ? idx.ts[pos]! : null)
    if (ts === null) return
    if (lo === null || ts < lo) lo = ts
    if (hi === null || ts > hi) hi = ts
  })
  return { lo, hi }
}

/** Decimal ns as Python and Go write them (19 digits today); longer is no time (and no BigInt cost). */
const NS_TEXT = /^-?\d{1,20}$/

/**
 * The row's sealed time: the body's `end_time_ns` (its start when it has no end: the Go writer's
 * rule, reference §1.1), a decimal string as both writers seal it; null when the body seals none.
 */
export function sealedTimeNs(body: unknown): bigint | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
  const o = body as Record<string, unknown>
  const end = o['end_time_ns']
  const t = end === undefined || end === null || end === '0' ? o['start_time_ns'] : end
  if (typeof t === 'string' && NS_TEXT.test(t)) return BigInt(t)
  if (typeof t === 'number' && Number.isSafeInteger(t)) return BigInt(t)
  return null
}

function timeNoteOf(t: { unsealed: number; none: number; outside: number }, ranged: boolean): string | null {
  const rows = (n: number): string => `${n} row${n === 1 ? '' : 's'}`
  const parts: string[] = []
  if (t.unsealed > 0)
    parts.push(
      `${rows(t.unsealed)} seal no end time and are placed by their unsealed timestamp_ns column` +
        (ranged ? ', which also decides whether they are in the range chosen' : ''),
    )
  if (t.none > 0) parts.push(`${rows(t.none)} have no time at all (judged, not charted)`)
  if (t.outside > 0)
    parts.push(`${rows(t.outside)} have a sealed end time outside the chart's span (judged, not charted)`)
  if (parts.length === 0) return null
  return `Times are each row's sealed end_time_ns; ${parts.join('; ')}.`
}

function noteOf(t: Track): { no_value?: string; not_judged?: string } {
  const note = noValueNote(t.none, t.dimension)
  const flat = flatNote(t)
  return { ...(note === null ? {} : { no_value: note }), ...(flat === null ? {} : { not_judged: flat }) }
}

/**
 * The CLI's "not judged" for a baseline without spread (./detect.ts notJudged): a value is flagged
 * only when its z-score and its IQR fences both fire (§8), and neither can against a block whose
 * values are all equal (no standard deviation) or whose middle half is (IQR 0). "No anomaly" is
 * then never in question for the values judged against it.
 */
function flatNote(t: Track): string | null {
  if (t.flat === 0) return null
  const n = `${t.flat} value${t.flat === 1 ? '' : 's'}`
  return t.judged === 0
    ? `every baseline had no spread (its values, or their middle half, all equal): ${n} judged against them, none could be flagged`
    : `${n} of ${t.flat + t.judged} judged against a baseline without spread (its values, or their middle half, all equal): those could not be flagged`
}
