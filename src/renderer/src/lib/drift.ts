// Derived facts about a payload-drift series (F12, reference §8), for the drift panel: labels of the
// dimensions, the chart rows of one dimension, the anomaly list in seq order, what a screen reader
// hears when the job ends. Pure functions: unit-tested in test/renderer/src/lib/drift.test.ts.
import type {
  DriftDimension,
  DriftGroup,
  DriftGroupDimension,
  DriftSeries,
  DriftSeriesAnomaly,
} from '../../../shared/drift-types'
import type { VerifyVerdict } from '../../../shared/verify-types'
import { counted, nsToMs, shownName } from './format'
import { findingRange } from './verdict'
import { DRIFT_DIMENSIONS, DRIFT_WINDOW, DRIFT_Z_THRESHOLD } from '../../../shared/drift-rules'

/** The reference's six dimensions, in its order (§8). */
export { DRIFT_DIMENSIONS }

export const DIMENSION_LABELS: Record<DriftDimension, string> = {
  input_tokens: 'input tokens',
  output_tokens: 'output tokens',
  cost: 'cost (USD)',
  cache_ratio: 'cache ratio',
  reasoning_ratio: 'reasoning ratio',
  ttfc_ms: 'time to first chunk (ms)',
}

/** The reference's defaults (`regression --window 100 --z-threshold 3.0`). */
export const DEFAULT_DRIFT_WINDOW = DRIFT_WINDOW.default
export const DEFAULT_Z_THRESHOLD = DRIFT_Z_THRESHOLD.default
export const DRIFT_WINDOW_MIN = DRIFT_WINDOW.min
export const DRIFT_WINDOW_MAX = DRIFT_WINDOW.max

/** A group's key in the panel's provider/model filter (the model may be absent). */
export function groupKey(g: Pick<DriftGroup, 'provider' | 'model'>): string {
  return JSON.stringify([g.provider, g.model])
}

/** A group's name as shown: its provider and model clipped (shownName), as the chain may make them megabytes. */
export function groupLabel(g: Pick<DriftGroup, 'provider' | 'model'>): string {
  return `${shownName(g.provider)} / ${g.model === null ? '(no model)' : shownName(g.model)}`
}

export interface DriftPoint {
  /** Bucket start, ms since epoch (the chart's x). */
  t: number
  mean: number | null
  /** [min, max] of the bucket, for the band; null when the bucket holds no value. */
  band: [number, number] | null
  count: number
}

/** One dimension's buckets as chart rows (empty buckets stay, with null values: gaps in the line). */
export function driftPoints(d: DriftGroupDimension): DriftPoint[] {
  return d.buckets.map((b) => ({
    t: nsToMs(b.start_ns),
    mean: b.mean,
    band: b.min !== null && b.max !== null ? [b.min, b.max] : null,
    count: b.count,
  }))
}

/** Where an anomaly sits on its dimension's chart. */
export function anomalyPoint(a: DriftSeriesAnomaly): { t: number; value: number } {
  return { t: nsToMs(a.timestamp_ns), value: a.value }
}

export interface AnomalyRow extends DriftSeriesAnomaly {
  group: string
}

/**
 * Every listed anomaly of the groups shown, in seq order then dimension order (the reference's
 * order within a dimension is seq order; across dimensions it prints dimension by dimension).
 */
export function anomalyRows(groups: DriftGroup[]): AnomalyRow[] {
  const rows: AnomalyRow[] = []
  for (const g of groups)
    for (const d of g.dimensions) for (const a of d.anomalies) rows.push({ ...a, group: groupLabel(g) })
  const order = (dim: DriftDimension): number => DRIFT_DIMENSIONS.indexOf(dim)
  return rows.sort((a, b) => a.seq - b.seq || order(a.dimension) - order(b.dimension))
}

/** The groups the panel shows: all, or the one the filter names. */
export function shownGroups(series: DriftSeries | null, key: string | null): DriftGroup[] {
  if (!series) return []
  return key === null ? series.groups : series.groups.filter((g) => groupKey(g) === key)
}

/** True when some dimension of these groups found more anomalies than it lists. */
export function anyTruncated(groups: DriftGroup[]): boolean {
  return groups.some((g) => g.dimensions.some((d) => d.anomalies_truncated))
}

/**
 * Why a dimension can show no anomaly: the engine judges each block of `window` values against the
 * block before it, so the first `window` values of a group are only a baseline.
 */
export function baselineNote(d: DriftGroupDimension, window: number): string | null {
  if (d.points === 0) return 'no values'
  if (d.points <= window)
    return `fewer than ${counted(window + 1, 'value')} (${d.points}): no baseline, nothing judged`
  return d.not_judged ?? null
}

/** A value as the reference prints it: token counts whole, ratios and cost with decimals. */
export function formatDriftValue(v: number | null, dim: DriftDimension): string {
  if (v === null || !Number.isFinite(v)) return '—'
  if (dim === 'cost') return v.toFixed(6)
  if (dim === 'cache_ratio' || dim === 'reasoning_ratio') return v.toFixed(3)
  if (dim === 'ttfc_ms') return v.toFixed(1)
  return Number.isInteger(v) ? String(v) : v.toFixed(1)
}

export function formatScore(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : v.toFixed(2)
}

export const METHOD_LABELS: Record<DriftSeriesAnomaly['method_triggered'], string> = {
  z_score: 'z-score',
  iqr: 'IQR',
  both: 'z-score and IQR',
}

/** What a screen reader hears when the drift job ends. */
export function driftSentence(s: DriftSeries): string {
  const n = s.anomaly_count
  const g = s.groups.length
  const groups = `${g} provider/model group${g === 1 ? '' : 's'}`
  return n === 0
    ? `Payload drift finished: no anomalies in ${groups}.`
    : `Payload drift finished: ${n} anomal${n === 1 ? 'y' : 'ies'} in ${groups}.`
}

/** Findings that make a row's payload not the sealed one (the HMAC only where it was checked). */
const PAYLOAD_FAILS = ['body_hash_mismatch', 'link_mismatch', 'hmac_mismatch'] as const

/**
 * What the chain's verdict (keyed, else the keyless check) says of the payloads drift reads — the
 * CLI's `regression` row check, for the panel: null when every row holds; the rows that do not hold
 * otherwise, and that values read from them prove nothing; "not checked yet" while no verdict is
 * known (never "unchanged" before it is known). Chain-wide: the verdict does not know which rows the
 * series read, so it names the rows, not the anomalies.
 */
export function driftRowsNote(v: VerifyVerdict | null, shown = 5): string | null {
  if (v === null || v.cancelled)
    return 'The rows are not verified yet: nothing here proves the payloads read are the ones sealed.'
  const kinds: readonly string[] =
    v.hmac_checked === false ? PAYLOAD_FAILS.filter((k) => k !== 'hmac_mismatch') : PAYLOAD_FAILS
  const bad = v.findings.filter((f) => kinds.includes(f.kind))
  if (bad.length === 0) return null
  const runs = bad.slice(0, shown).map(findingRange).join(', ')
  const more = bad.length > shown ? `, and ${bad.length - shown} more` : ''
  const how = v.hmac_checked === false ? ' (seen without a key)' : ''
  return (
    `Rows of this chain do not verify${how}: seq ${runs}${more}. ` +
    'Values read from them, and anomalies at them, prove nothing about the sealed calls.'
  )
}
