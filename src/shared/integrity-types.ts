// The integrity monitor's report, in the key order of Python BIJOTEL's `IntegrityReport.to_dict()`.

export interface SequenceGap {
  after_seq: number
  before_seq: number
  missing_count: number
}

export interface TimestampAnomaly {
  seq: number
  type: 'backward' | 'large_gap' | 'burst'
  delta_sec: number
  detail: string
}

export interface HashAnomaly {
  seq: number
  type: 'duplicate_canonical'
  detail: string
}

export interface ProviderShiftEntry {
  baseline_pct: number
  current_pct: number
  delta_pct: number
}

/** A shifted provider whose key is one already in `shifts` (the string "1" beside the number 1). */
export interface SameSpellingShift extends ProviderShiftEntry {
  provider: string
}

export interface ProviderShift {
  shifts: Record<string, ProviderShiftEntry>
  /** Absent when no two shifted providers share a spelling (./provider-shifts.ts reads both). */
  same_spelling?: SameSpellingShift[]
}

export interface RateAnomaly {
  baseline_rate: number
  current_rate: number
  change_pct: number
}

export interface RotationBoundary {
  seq: number
  detail: string
}

export interface IntegrityReport {
  window: number
  first_seq: number | null
  last_seq: number | null
  clean: boolean
  anomaly_count: number
  sequence_gaps: SequenceGap[]
  timestamp_anomalies: TimestampAnomaly[]
  hash_anomalies: HashAnomaly[]
  provider_shift: ProviderShift | null
  rate_anomalies: RateAnomaly[]
  rotation_boundaries: RotationBoundary[]
}

export interface IntegrityThresholds {
  burst_threshold: number
  large_gap_sec: number
  provider_shift_pct: number
  rate_tol: number
  min_split_size: number
}

export interface IntegrityOptions {
  /** Last N rows by seq (2..10000); ignored when `all` is set. */
  window?: number
  /** Analyse the whole chain in one streaming pass. */
  all?: boolean
  thresholds?: Partial<IntegrityThresholds>
}

/** What the auditor gets: the Python-compatible report plus how it was produced. */
export interface IntegrityRun {
  report: IntegrityReport
  mode: 'window' | 'all'
  thresholds: IntegrityThresholds
  /** Why `rotation_boundaries` is empty when it is (no keys given), or how it was filled. */
  rotation_note: string
  /** Whether candidate keys were given, so the analysed range was verified for key changes. */
  rotation_checked?: boolean
  /** Window mode: the window asked for (`report.window` is the rows actually analysed), so the run can be repeated. */
  window_requested?: number
}
