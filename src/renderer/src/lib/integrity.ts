// The integrity report, shaped for the panel and the charts.
import type { IntegrityReport, IntegrityThresholds } from '../../../shared/integrity-types'
import { shiftsByDelta } from '../../../shared/provider-shifts'
import { counted, pyFloat, signed } from './format'
import {
  DEFAULT_THRESHOLDS as SHARED_DEFAULTS,
  INTEGRITY_WINDOW,
  THRESHOLD_RULES,
} from '../../../shared/integrity-rules'

/** The reference's constants (§5.1): used until the engine reports the thresholds it applied. */
export const DEFAULT_THRESHOLDS = SHARED_DEFAULTS

export const THRESHOLD_LABELS = Object.fromEntries(THRESHOLD_RULES.map((r) => [r.key, r.label])) as Record<
  keyof IntegrityThresholds,
  string
>

export const WINDOW_MIN = INTEGRITY_WINDOW.min
export const WINDOW_MAX = INTEGRITY_WINDOW.max

export function clampWindow(n: number): number {
  if (!Number.isFinite(n)) return INTEGRITY_WINDOW.default
  return Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, Math.round(n)))
}

export interface AnomalyMark {
  seq: number
  category: 'sequence' | 'timestamp' | 'hash' | 'rotation'
  detail: string
}

/** Anomalies that name a row (bursts name a second, shifts and rates name halves). */
export function anomalyMarks(r: IntegrityReport): AnomalyMark[] {
  const out: AnomalyMark[] = []
  for (const g of r.sequence_gaps)
    out.push({
      seq: g.before_seq,
      category: 'sequence',
      detail: `gap after seq ${g.after_seq}: ${g.missing_count} missing`,
    })
  for (const t of r.timestamp_anomalies)
    if (t.seq > 0) out.push({ seq: t.seq, category: 'timestamp', detail: `${t.type}: ${t.detail}` })
  for (const h of r.hash_anomalies) out.push({ seq: h.seq, category: 'hash', detail: h.detail })
  for (const b of r.rotation_boundaries) out.push({ seq: b.seq, category: 'rotation', detail: b.detail })
  return out
}

/** Provider shifts sorted by descending |delta|, as the CLI prints them. */
export function shiftLines(r: IntegrityReport): string[] {
  if (!r.provider_shift) return []
  return shiftsByDelta(r.provider_shift).map(
    ([p, s]) => `${p}: ${pyFloat(s.baseline_pct)}% -> ${pyFloat(s.current_pct)}% (${signed(s.delta_pct)}pp)`,
  )
}

export function rateLines(r: IntegrityReport): string[] {
  return r.rate_anomalies.map(
    (a) => `${pyFloat(a.baseline_rate)}/h -> ${pyFloat(a.current_rate)}/h (${signed(a.change_pct)}%)`,
  )
}

/** Header line as the CLI prints it. */
export function integrityHeadline(r: IntegrityReport): string {
  if (r.window === 0) return 'Chain integrity: EMPTY CHAIN (nothing to analyze)'
  const what = `last ${counted(r.window, 'entry', 'entries')}, seq ${r.first_seq}..${r.last_seq}`
  return r.clean
    ? `Chain integrity: CLEAN (${what})`
    : `Chain integrity: ${r.anomaly_count} ANOMALIES (${what})`
}

/** Listing offsets (seq order, unfiltered) of the window's rows and its halves (n ≥ 2). */
export interface WindowHalves {
  n: number
  mid: number
  /** Offset of the window's first row in the seq-ascending listing. */
  start: number
}

export function windowHalves(r: IntegrityReport, totalEntries: number): WindowHalves | null {
  const n = r.window
  if (n < 2 || totalEntries < n) return null
  return { n, mid: Math.floor(n / 2), start: totalEntries - n }
}

/** Entries per hour of both halves, the monitor's formula (§5.3 rate); null when a half has no span. */
export function halfRates(
  n: number,
  ts0: bigint,
  tsMidPrev: bigint,
  tsMid: bigint,
  tsLast: bigint,
): { first: number; second: number } | null {
  const mid = Math.floor(n / 2)
  const firstSecs = Number(tsMidPrev - ts0) / 1e9
  const secondSecs = Number(tsLast - tsMid) / 1e9
  if (firstSecs <= 0 || secondSecs <= 0) return null
  return { first: mid / (firstSecs / 3600), second: (n - mid) / (secondSecs / 3600) }
}
