// `bijotel regression` (reference §8): each dimension's last 50 seq numbers scored against a
// baseline of the `window` values before them, by z-score and IQR, flagged when both fire (the
// reference's default method BOTH). The reference reads the chain once per dimension and may scan
// all of it for a baseline (§11.20); here one descending pass collects every dimension's baseline
// (stopping when each has `window` values) and one pass reads the evaluated rows, each body parsed once.
import type { DriftAnomaly, DriftBaseline, DriftDimension, RegressionResult } from '../../shared/drift-types'
import type { KeyMaterial } from '../chain/keys'
import type { RowSource } from '../chain/source/row-source'
import { bytesOf, seqOf, streamRows, valueOf } from '../chain/source/stream'
import { pyFormatTime } from '../python/py-body'
import { attributesPy, dimensionValue, parseBodyPy, type Attrs } from './dimensions'
import { usedRowsCheck } from './row-check'
import { baselineOf, MIN_SAMPLES, score } from './stats'

export interface RegressionOptions {
  dimensions: readonly DriftDimension[]
  /** Exact `gen_ai.request.model` filter, on baseline and evaluated rows alike. */
  model?: string
  window: number
  zThreshold: number
  /** Candidate keys: the rows read are verified with their HMAC too (else without a key). */
  keys?: KeyMaterial[]
  signal?: { aborted: boolean }
  onProgress?: (done: number, total: number) => void
}

/** The number of seq numbers the reference evaluates by default (`max(1, MAX(seq) − 49)`). */
export const EVALUATED_SEQS = 50n

/** A row's attributes as the detector reads them, or null when it gives no datapoint. */
function attrsOf(body: unknown, model: string | undefined): Attrs | null {
  const attrs = attributesPy(body)
  if (attrs === null) return null
  if (model !== undefined && attrs['gen_ai.request.model'] !== model) return null
  return attrs
}

export async function detectRegression(src: RowSource, opts: RegressionOptions): Promise<RegressionResult> {
  const maxSeq = src.ends()?.[1] ?? 0n
  const body = src.col('canonical_body')
  const ts = src.col('timestamp_ns')
  let since = maxSeq - (EVALUATED_SEQS - 1n)
  if (since < 1n) since = 1n

  // The baselines: rows before `since`, newest first, until each dimension has `window` values
  // (the reference appends, then stops at `len >= window`: a window below 1 still takes one value).
  const cap = Math.max(1, opts.window)
  const values = new Map<DriftDimension, number[]>(opts.dimensions.map((d) => [d, []]))
  let open = opts.dimensions.length
  // The rows whose values were used (a baseline's or an evaluated one), and those flagged.
  const used = new Set<bigint>()
  const flagged = new Set<bigint>()
  if (open > 0 && since > 1n) {
    await streamRows(
      src,
      {
        range: { to: since - 1n },
        descending: true,
        columns: ['canonical_body'],
        ...(opts.signal ? { signal: opts.signal } : {}),
      },
      (r) => {
        const attrs = attrsOf(parseBodyPy(bytesOf(r, body)), opts.model)
        if (attrs === null) return
        for (const d of opts.dimensions) {
          const list = values.get(d)!
          if (list.length >= cap) continue
          const v = dimensionValue(attrs, d)
          if (v === null) continue
          list.push(v)
          used.add(seqOf(r))
          if (list.length >= cap) open--
        }
        return open > 0
      },
    )
  }
  const baselines = new Map<DriftDimension, DriftBaseline | null>(
    opts.dimensions.map((d) => [d, baselineOf(values.get(d)!)]),
  )

  const anomalies = new Map<DriftDimension, DriftAnomaly[]>(opts.dimensions.map((d) => [d, []]))
  const evaluated = new Map<DriftDimension, number>(opts.dimensions.map((d) => [d, 0]))
  await streamRows(
    src,
    {
      range: { from: since },
      columns: ['timestamp_ns', 'canonical_body'],
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
    (r) => {
      const attrs = attrsOf(parseBodyPy(bytesOf(r, body)), opts.model)
      if (attrs === null) return
      for (const d of opts.dimensions) {
        const v = dimensionValue(attrs, d)
        if (v === null) continue
        evaluated.set(d, evaluated.get(d)! + 1)
        used.add(seqOf(r))
        const b = baselines.get(d)
        if (!b) continue
        const s = score(v, b, opts.zThreshold)
        if (!(s.zTriggered && s.iqrTriggered)) continue
        flagged.add(seqOf(r))
        anomalies.get(d)!.push({
          seq: Number(seqOf(r)),
          timestamp: pyFormatTime(valueOf(r, ts)),
          dimension: d,
          value: v,
          baseline_mean: b.mean,
          z_score: s.z,
          iqr_distance: s.iqrDistance,
          method_triggered: 'both',
          severity: 'anomaly',
        })
      }
    },
  )

  const dims = opts.dimensions.map((d) => {
    const why = notJudged({
      baseline: baselines.get(d)!,
      found: values.get(d)!.length,
      evaluated: evaluated.get(d)!,
      since,
      maxSeq,
      cap,
      zThreshold: opts.zThreshold,
    })
    return {
      dimension: d,
      baseline: baselines.get(d)!,
      evaluated: evaluated.get(d)!,
      anomalies: anomalies.get(d)!,
      ...(why === null ? {} : { not_judged: why }),
    }
  })
  const rowCheck = await usedRowsCheck(src, opts.keys ?? [], used, flagged, opts.signal)
  return {
    since_seq: Number(since),
    window: opts.window,
    z_threshold: opts.zThreshold,
    model: opts.model ?? null,
    dimensions: dims,
    total_anomalies: dims.reduce((n, d) => n + d.anomalies.length, 0),
    ...(rowCheck === null ? {} : { row_check: rowCheck }),
  }
}

const values_ = (n: number): string => `${n} value${n === 1 ? '' : 's'}`

/**
 * Why no evaluated value of a dimension could have been flagged, or null when some could. The
 * reference's rule flags a value only when both its z-score and its IQR fences fire (§8): with no
 * baseline, no value to judge, a baseline whose spread is zero (then no z-score, or fences that
 * never open) or a threshold no z-score reaches, "no anomalies detected" was never in question.
 */
export function notJudged(d: {
  baseline: DriftBaseline | null
  found: number
  evaluated: number
  since: bigint
  maxSeq: bigint
  cap: number
  zThreshold: number
}): string | null {
  if (d.evaluated === 0)
    return d.maxSeq < d.since
      ? 'the chain has no rows'
      : `no row of seqs ${d.since}..${d.maxSeq} gives a value`
  const b = d.baseline
  if (b === null) {
    const window = d.cap < MIN_SAMPLES ? `; the window takes at most ${d.cap}` : ''
    return `no baseline: ${values_(d.found)} before seq ${d.since}, at least ${MIN_SAMPLES} needed${window}`
  }
  if (Number.isNaN(d.zThreshold) || d.zThreshold === Infinity)
    return `no z-score reaches a threshold of ${d.zThreshold}`
  if (!(b.stdev > 0))
    return `the baseline's ${values_(b.samples)} have no finite spread (standard deviation ${b.stdev}): no z-score is computed`
  if (!(b.iqr > 0))
    return `the middle half of the baseline's ${values_(b.samples)} has no spread (IQR ${b.iqr}): no value lies outside its fences`
  return null
}
