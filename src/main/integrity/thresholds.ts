// The integrity monitor's thresholds (reference §5.1), with Python BIJOTEL's defaults. Every
// comparison is strict: a value exactly at the threshold does not fire.
import type { IntegrityThresholds } from '../../shared/integrity-types'
import { AuditError } from '../base/errors'
import { DEFAULT_THRESHOLDS, INTEGRITY_WINDOW, THRESHOLD_RULES } from '../../shared/integrity-rules'

const rule = (key: keyof IntegrityThresholds): number => DEFAULT_THRESHOLDS[key]

/** Rows in one wall-clock second above which a burst is reported (fires when > 10). */
export const BURST_THRESHOLD = rule('burst_threshold')
/** Seconds between consecutive rows above which a large gap is reported (fires when > 3600). */
export const LARGE_GAP_SEC = rule('large_gap_sec')
/** Percentage points a provider's share must move by between the halves (fires when |Δ| > 20). */
export const PROVIDER_SHIFT_PCT = rule('provider_shift_pct')
/** Tolerance on the rate ratio of the halves (fires when |ratio − 1| > 0.5). */
export const RATE_TOL = rule('rate_tol')
/** Rows each half needs for the provider and rate detectors (n ≥ 2 × 10). */
export const MIN_SPLIT_SIZE = rule('min_split_size')

/** Window bounds (the reference's REST bounds; its CLI is unbounded, §11.16). */
export const MIN_WINDOW = INTEGRITY_WINDOW.min
export const MAX_WINDOW = INTEGRITY_WINDOW.max
export const DEFAULT_WINDOW = INTEGRITY_WINDOW.default

export { DEFAULT_THRESHOLDS }

function check(name: string, v: unknown, integer: boolean, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isSafeInteger(v)) || v < min) {
    throw new AuditError(
      'bad_argument',
      `${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${String(v)}`,
    )
  }
  return v
}

/** The defaults with the given overrides, validated. */
export function resolveThresholds(overrides: Partial<IntegrityThresholds> = {}): IntegrityThresholds {
  const t = { ...DEFAULT_THRESHOLDS, ...overrides }
  const out = { ...DEFAULT_THRESHOLDS }
  for (const r of THRESHOLD_RULES) out[r.key] = check(r.key, t[r.key], r.integer, r.min)
  return out
}

export function checkWindow(window: unknown): number {
  if (
    typeof window !== 'number' ||
    !Number.isSafeInteger(window) ||
    window < MIN_WINDOW ||
    window > MAX_WINDOW
  ) {
    throw new AuditError(
      'bad_argument',
      `window must be an integer from ${MIN_WINDOW} to ${MAX_WINDOW}, got ${String(window)}`,
    )
  }
  return window
}
