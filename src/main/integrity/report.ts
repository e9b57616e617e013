// Assembling the IntegrityReport (reference §5.4) and writing it exactly as Python's
// `json.dumps(report.to_dict(), separators=(',', ':'))`: the serializer knows which fields are
// floats (they print as `94.0`, `-95.0`, `0.0`), the rest are ints, strings, booleans and null.
import type {
  HashAnomaly,
  IntegrityReport,
  ProviderShift,
  RateAnomaly,
  RotationBoundary,
  SequenceGap,
  TimestampAnomaly,
} from '../../shared/integrity-types'
import { PyDictItems, pyFloat, pyJsonDumps, type PyValue } from '../python/pyformat'
import { shiftItems } from '../../shared/provider-shifts'

export interface DetectorResults {
  window: number
  first_seq: number | null
  last_seq: number | null
  sequence_gaps: SequenceGap[]
  timestamp_anomalies: TimestampAnomaly[]
  hash_anomalies: HashAnomaly[]
  provider_shift: ProviderShift | null
  rate_anomalies: RateAnomaly[]
  rotation_boundaries: RotationBoundary[]
}

export function assembleReport(r: DetectorResults): IntegrityReport {
  const lists =
    r.sequence_gaps.length +
    r.timestamp_anomalies.length +
    r.hash_anomalies.length +
    r.rate_anomalies.length +
    r.rotation_boundaries.length
  const anomaly_count = lists + (r.provider_shift ? 1 : 0)
  return {
    window: r.window,
    first_seq: r.first_seq,
    last_seq: r.last_seq,
    clean: anomaly_count === 0,
    anomaly_count,
    sequence_gaps: r.sequence_gaps,
    timestamp_anomalies: r.timestamp_anomalies,
    hash_anomalies: r.hash_anomalies,
    provider_shift: r.provider_shift,
    rate_anomalies: r.rate_anomalies,
    rotation_boundaries: r.rotation_boundaries,
  }
}

/** Python's `to_dict()` as typed Python values, in its key order (provider keys sorted, see shiftItems). */
export function reportToPy(r: IntegrityReport): PyValue {
  const shift: PyValue =
    r.provider_shift === null
      ? null
      : {
          shifts: new PyDictItems(
            shiftItems(r.provider_shift).map(([p, s]) => [
              p,
              {
                baseline_pct: pyFloat(s.baseline_pct),
                current_pct: pyFloat(s.current_pct),
                delta_pct: pyFloat(s.delta_pct),
              },
            ]),
          ),
        }
  return {
    window: r.window,
    first_seq: r.first_seq,
    last_seq: r.last_seq,
    clean: r.clean,
    anomaly_count: r.anomaly_count,
    sequence_gaps: r.sequence_gaps.map((g) => ({
      after_seq: g.after_seq,
      before_seq: g.before_seq,
      missing_count: g.missing_count,
    })),
    timestamp_anomalies: r.timestamp_anomalies.map((a) => ({
      seq: a.seq,
      type: a.type,
      delta_sec: pyFloat(a.delta_sec),
      detail: a.detail,
    })),
    hash_anomalies: r.hash_anomalies.map((a) => ({ seq: a.seq, type: a.type, detail: a.detail })),
    provider_shift: shift,
    rate_anomalies: r.rate_anomalies.map((a) => ({
      baseline_rate: pyFloat(a.baseline_rate),
      current_rate: pyFloat(a.current_rate),
      change_pct: pyFloat(a.change_pct),
    })),
    rotation_boundaries: r.rotation_boundaries.map((b) => ({ seq: b.seq, detail: b.detail })),
  }
}

/** The `--json` line: byte for byte what Python BIJOTEL prints (without the newline). */
export function reportJson(r: IntegrityReport): string {
  return pyJsonDumps(reportToPy(r))
}
