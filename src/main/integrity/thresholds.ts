// The integrity monitor's thresholds (reference §5.1), with Python BIJOTEL's defaults. Every
// comparison is strict: a value exactly at the threshold does not fire.
import type { IntegrityThresholds } from '../../shared/integrity-types'
import { AuditError } from '../base/errors'

/** Rows in one wall-clock second above which a burst is reported (fires when > 10). */
export const BURST_THRESHOLD = 10
/** Seconds between consecutive rows above which a large gap is reported (fires when > 3600). */
export const LARGE_GAP_SEC = 3600.0
/** Percentage points a provider's share must move by between the halves (fires when |Δ| > 20). */
export const PROVIDER_SHIFT_PCT = 20.0
/** Tolerance on the rate ratio of the halves (fires when |ratio − 1| > 0.5). */
export const RATE_TOL = 0.5
/** Rows each half needs for the provider and rate detectors (n ≥ 2 × 10). */
export const MIN_SPLIT_SIZE = 10

/** Window bounds (the reference's REST bounds; its CLI is unbounded, §11.16). */
export const MIN_WINDOW = 2
export const MAX_WINDOW = 10_000
export const DEFAULT_WINDOW = 100

export const DEFAULT_THRESHOLDS: Readonly<IntegrityThresholds> = Object.freeze({
  burst_threshold: BURST_THRESHOLD,
  large_gap_sec: LARGE_GAP_SEC,
  provider_shift_pct: PROVIDER_SHIFT_PCT,
  rate_tol: RATE_TOL,
  min_split_size: MIN_SPLIT_SIZE,
})

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
  return {
    burst_threshold: check('burst_threshold', t.burst_threshold, true, 0),
    large_gap_sec: check('large_gap_sec', t.large_gap_sec, false, 0),
    provider_shift_pct: check('provider_shift_pct', t.provider_shift_pct, false, 0),
    rate_tol: check('rate_tol', t.rate_tol, false, 0),
    // At least 1, so both halves are non-empty (Python would divide by zero on n < 2).
    min_split_size: check('min_split_size', t.min_split_size, true, 1),
  }
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
