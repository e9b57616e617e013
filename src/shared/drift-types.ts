// F12 payload drift (reference §8): the CLI's `regression` result and the app's series per
// provider/model. Anomaly fields and names are the reference's `Anomaly` record.
import type { DRIFT_DIMENSIONS } from './drift-rules'

/** One of the reference's six dimensions (the list: DRIFT_DIMENSIONS in ./drift-rules). */
export type DriftDimension = (typeof DRIFT_DIMENSIONS)[number]

/** The reference's baseline statistics of one dimension (`DimensionStats`). */
export interface DriftBaseline {
  samples: number
  mean: number
  stdev: number
  p25: number
  p50: number
  p75: number
  iqr: number
  min: number
  max: number
}

export interface DriftAnomaly {
  seq: number
  /** `%Y-%m-%dT%H:%M:%SZ`, as the reference prints it. */
  timestamp: string
  dimension: DriftDimension
  value: number
  baseline_mean: number
  z_score: number | null
  iqr_distance: number | null
  method_triggered: 'z_score' | 'iqr' | 'both'
  severity: 'anomaly' | 'warning'
}

/**
 * The rows a drift judgement read, checked without a key (body hash, link): present only when one
 * of them does not hold, or an anomaly's row has unsealed columns that disagree with its body.
 */
export interface DriftRowCheck {
  /** False when a row whose value was used does not verify. */
  verified: boolean
  /** The used rows that do not verify. */
  seqs: number[]
  /** One line: which rows, and why. */
  detail: string
}

/** `bijotel regression --json`. */
export interface RegressionResult {
  /** First evaluated seq (the reference's default: the last 50 seq numbers). */
  since_seq: number
  window: number
  z_threshold: number
  model: string | null
  dimensions: {
    dimension: DriftDimension
    /** null: fewer than 5 baseline samples, so no anomaly can be found (the reference's rule). */
    baseline: DriftBaseline | null
    /** Evaluated rows that gave a value. */
    evaluated: number
    anomalies: DriftAnomaly[]
    /**
     * Only when no evaluated value could have been flagged (no baseline, no value evaluated, a
     * baseline without spread, a threshold no z-score reaches): why, in one line. The reference's
     * text then still reads "no anomalies detected"; that means none could be found.
     */
    not_judged?: string
  }[]
  total_anomalies: number
  /** Only when a row read does not hold (./DriftRowCheck). */
  row_check?: DriftRowCheck
}

export interface DriftSeriesRequest {
  /** Time buckets of the series (default 100). */
  buckets?: number
  /** Values per baseline block (default 100, as the reference's window). */
  window?: number
  z_threshold?: number
  dimensions?: DriftDimension[]
  provider?: string
  model?: string
  from_ns?: string
  to_ns?: string
}

export interface DriftBucket {
  start_ns: string
  count: number
  mean: number | null
  min: number | null
  max: number | null
}

/**
 * An anomaly in a series: the reference's record, and where it sits in time — the row's sealed end
 * time (the body's `end_time_ns`), else its unsealed timestamp_ns column (`time_unsealed`), else
 * none (`timestamp_ns` empty).
 */
export interface DriftSeriesAnomaly extends DriftAnomaly {
  timestamp_ns: string
  /** Only when the time shown is the unsealed timestamp_ns column (the body seals no end time). */
  time_unsealed?: true
}

export interface DriftGroupDimension {
  dimension: DriftDimension
  /** Rows of the group that gave a value. */
  points: number
  buckets: DriftBucket[]
  anomalies: DriftSeriesAnomaly[]
  /** True when more anomalies were found than are listed. */
  anomalies_truncated: boolean
  /** Only when some rows of the group gave no value: why, in one line (e.g. a model the price table lacks). */
  no_value?: string
  /** Only when some values were judged against a baseline without spread: none of those could be flagged. */
  not_judged?: string
}

export interface DriftGroup {
  provider: string
  model: string | null
  rows: number
  dimensions: DriftGroupDimension[]
}

/**
 * Each dimension over time per provider/model. Anomalies are judged as the reference judges them
 * (z-score and IQR against a baseline of `window` values, both must fire), each block of `window`
 * values of a group against the block before it.
 */
export interface DriftSeries {
  from_ns: string
  to_ns: string
  bucket_ns: string
  window: number
  z_threshold: number
  /** The groups charted: at most MAX_CHARTED_GROUPS (the engine's), those with the most rows. */
  groups: DriftGroup[]
  /** Every anomaly found, in the groups charted and in those omitted. */
  anomaly_count: number
  /**
   * Only when more groups hold rows than are charted: how many are not, their rows and anomalies
   * (judged like the others: choose a provider or model in the view to chart them).
   */
  omitted?: { groups: number; rows: number; anomalies: number }
  /**
   * Only when some row's time is not sealed: rows placed by their unsealed timestamp_ns column
   * (the body seals no end time), rows with no time at all, rows whose sealed time lies outside the
   * chart's span — in one line. Every row is judged whatever its time; only a chosen time range
   * selects rows by it.
   */
  time_note?: string
}
