// F12 payload drift for the app: each dimension over time per provider/model, anomalies marked.
// The values are the reference's (§8, ./dimensions), the judgement its rule (z-score and IQR against
// a baseline of `window` values, both must fire; fewer than 5 values: no baseline): each group's
// values are taken in seq order in blocks of `window`, and every value of a block is judged against
// the block before it — the CLI's "last 50 against the window before them", carried along the whole
// chain in one streamed pass (memory: one block per group and dimension, plus the buckets).
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
  const ext = timestampExtremes(idx)
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
  if (lo === null || hi === null || hi < lo) return empty
  const width = (hi - lo + 1n + BigInt(nb) - 1n) / BigInt(nb)
  const providerId = opts.provider !== undefined ? idx.providerNames.indexOf(opts.provider) : -2
  const modelId = opts.model !== undefined ? idx.modelNames.indexOf(opts.model) : -2
  if (providerId === -1 || modelId === -1) return { ...empty, from_ns: lo.toString(), to_ns: hi.toString() }

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

  const body = src.col('canonical_body')
  await streamRows(
    src,
    {
      // The time of each row is the index's (the same rows, read when the chain was opened).
      columns: ['canonical_body'],
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
    (r) => {
      const seq = r.rowid
      const pos = positionOfSeq(idx, seq)
      if (pos === null || !idx.tsValid[pos]) return
      const ts = idx.ts[pos]!
      if (ts < lo || ts > hi) return
      if (providerId !== -2 && idx.provider[pos] !== providerId) return
      if (modelId !== -2 && idx.model[pos] !== modelId) return
      const attrs = attributesPy(parseBodyPy(bytesOf(r, body)))
      if (attrs === null) return
      const g = groupOf(pos)
      g.rows++
      const b = Math.min(nb - 1, Number((ts - lo) / width))
      for (const t of g.tracks) {
        const v = dimensionValue(attrs, t.dimension)
        if (v === null) {
          tallyNoValue(t.none, attrs, t.dimension)
          continue
        }
        t.points++
        const c = t.cells.get(b)
        if (c === undefined) t.cells.set(b, { count: 1, sum: v, min: v, max: v })
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
                timestamp: pyFormatTime(ts),
                timestamp_ns: ts.toString(),
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
          start_ns: (lo + width * BigInt(k)).toString(),
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
  return {
    from_ns: lo.toString(),
    to_ns: hi.toString(),
    bucket_ns: width.toString(),
    window: opts.window,
    z_threshold: opts.zThreshold,
    groups: out,
    anomaly_count: total,
    ...(omitted.groups > 0 ? { omitted } : {}),
  }
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
