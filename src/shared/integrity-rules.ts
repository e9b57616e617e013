// The integrity monitor's rules as data, for every side that needs them (the engine, the CLI flags
// and help, the handlers' request checks, the renderer's form): Python BIJOTEL's thresholds and
// defaults (reference §5.1) and the window bounds (its REST bounds; its CLI is unbounded, §11.16).
// Every comparison is strict: a value exactly at a threshold does not fire.
import type { IntegrityThresholds } from './integrity-types'

export interface ThresholdRule {
  key: keyof IntegrityThresholds
  /** The CLI flag (without `--`). */
  flag: string
  /** Python's default. */
  default: number
  /** How the CLI help writes the default (Python's spelling of the constant: `20.0`). */
  defaultText: string
  integer: boolean
  /** The smallest value accepted (min_split_size ≥ 1 keeps both halves non-empty). */
  min: number
  /** The CLI help's metavariable and description. */
  metavar: string
  help: string
  /** The renderer's field label. */
  label: string
}

export const THRESHOLD_RULES: readonly ThresholdRule[] = Object.freeze([
  {
    key: 'burst_threshold',
    flag: 'burst-threshold',
    metavar: 'N',
    default: 10,
    defaultText: '10',
    integer: true,
    min: 0,
    help: 'rows in one epoch second above which a burst is reported',
    label: 'Burst (rows/s >)',
  },
  {
    key: 'large_gap_sec',
    flag: 'large-gap-sec',
    metavar: 'S',
    default: 3600.0,
    defaultText: '3600',
    integer: false,
    min: 0,
    help: 'seconds between rows above which a large gap is reported',
    label: 'Large gap (s >)',
  },
  {
    key: 'provider_shift_pct',
    flag: 'provider-shift-pct',
    metavar: 'P',
    default: 20.0,
    defaultText: '20.0',
    integer: false,
    min: 0,
    help: 'share change in points above which a provider shift is reported',
    label: 'Provider shift (pp >)',
  },
  {
    key: 'rate_tol',
    flag: 'rate-tol',
    metavar: 'R',
    default: 0.5,
    defaultText: '0.5',
    integer: false,
    min: 0,
    help: '|second-half rate / first-half rate - 1| above which a rate change is reported',
    label: 'Rate tolerance (|ratio−1| >)',
  },
  {
    key: 'min_split_size',
    flag: 'min-split-size',
    metavar: 'N',
    default: 10,
    defaultText: '10',
    integer: true,
    min: 1,
    help: 'rows each half needs for the provider and rate detectors',
    label: 'Min split size',
  },
] as const satisfies readonly ThresholdRule[])

export const DEFAULT_THRESHOLDS: Readonly<IntegrityThresholds> = Object.freeze(
  Object.fromEntries(THRESHOLD_RULES.map((r) => [r.key, r.default])) as unknown as IntegrityThresholds,
)

/** The integrity window: the last N rows by seq, N within these bounds. */
export const INTEGRITY_WINDOW = Object.freeze({ min: 2, max: 10_000, default: 100 })
