// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import type { Timeline } from '../../../../src/shared/chain-types'
import {
  bucketIndexOf,
  indicesOfRange,
  providerColor,
  rangeOfIndices,
  ratePerHour,
  shareKey,
  timelineRows,
  totalCount,
  providerKey,
} from '../../../../src/renderer/src/lib/chart-data'
import {
  halfRates,
  integrityHeadline,
  rateLines,
  shiftLines,
  windowHalves,
  clampWindow,
  anomalyMarks,
} from '../../../../src/renderer/src/lib/integrity'
import type { IntegrityReport } from '../../../../src/shared/integrity-types'

const HOUR = 3_600_000_000_000n
const T0 = 1_764_000_000_000_000_000n

function tl(counts: { a: number; b: number }[]): Timeline {
  return {
    from_ns: T0.toString(),
    to_ns: (T0 + HOUR * BigInt(counts.length) - 1n).toString(),
    bucket_ns: HOUR.toString(),
    providers: ['a', 'b'],
    buckets: counts.map((c, i) => ({
      start_ns: (T0 + HOUR * BigInt(i)).toString(),
      end_ns: (T0 + HOUR * BigInt(i + 1) - 1n).toString(),
      count: c.a + c.b,
      by_provider: { ...(c.a ? { a: c.a } : {}), ...(c.b ? { b: c.b } : {}) },
    })),
  }
}

describe('timeline rows', () => {
  const t = tl([
    { a: 10, b: 10 },
    { a: 0, b: 0 },
    { a: 3, b: 1 },
  ])
  it('counts, rates and shares per bucket', () => {
    const rows = timelineRows(t)
    expect(rows).toHaveLength(3)
    expect(totalCount(t)).toBe(24)
    expect(rows[0]!.count).toBe(20)
    expect(rows[0]!.rate).toBe(20)
    expect(rows[0]![providerKey('a')]).toBe(10)
    expect(rows[0]![shareKey('a')]).toBe(50)
    expect(rows[1]![shareKey('a')]).toBe(0)
    expect(rows[2]![shareKey('a')]).toBe(75)
    expect(rows[2]![shareKey('b')]).toBe(25)
    expect(ratePerHour(30, (HOUR / 2n).toString())).toBe(60)
  })
  it('puts marks in their buckets', () => {
    const m = {
      seq: 57,
      ns: (T0 + HOUR * 2n + 5n).toString(),
      ms: 0,
      kinds: ['verify: body hash mismatch'],
      severity: 'verify' as const,
    }
    const rows = timelineRows(t, [m, { ...m, seq: 99, ns: '1' }])
    expect(rows[2]!.marks.map((x) => x.seq)).toEqual([57])
    expect(rows[2]!.mark).toBe(4)
    expect(rows[0]!.mark).toBeNull()
    expect(bucketIndexOf(t, T0.toString())).toBe(0)
    expect(bucketIndexOf(t, (T0 + HOUR * 3n - 1n).toString())).toBe(2)
    expect(bucketIndexOf(t, (T0 + HOUR * 3n).toString())).toBe(-1)
  })
  it('converts brush indices to ranges and back', () => {
    expect(rangeOfIndices(t, 0, 2)).toBeNull()
    const r = rangeOfIndices(t, 1, 2)!
    expect(r.from_ns).toBe((T0 + HOUR).toString())
    expect(indicesOfRange(t, r)).toEqual({ start: 1, end: 2 })
    expect(indicesOfRange(t, null)).toEqual({ start: 0, end: 2 })
    expect(rangeOfIndices(t, 2, 1)).toEqual(rangeOfIndices(t, 1, 2))
  })
  it('handles no timeline', () => {
    expect(timelineRows(null)).toEqual([])
    expect(totalCount(null)).toBe(0)
  })
  it('gives providers stable colours', () => {
    expect(providerColor(['a', 'b'], 'a')).not.toBe(providerColor(['a', 'b'], 'b'))
    expect(providerColor(['a', 'b'], 'a')).toBe(providerColor(['a', 'b'], 'a'))
  })
})

const report = (over: Partial<IntegrityReport> = {}): IntegrityReport => ({
  window: 100,
  first_seq: 141,
  last_seq: 240,
  clean: true,
  anomaly_count: 0,
  sequence_gaps: [],
  timestamp_anomalies: [],
  hash_anomalies: [],
  provider_shift: null,
  rate_anomalies: [],
  rotation_boundaries: [],
  ...over,
})

describe('integrity helpers', () => {
  it('prints the headline and shift lines as the CLI does', () => {
    expect(integrityHeadline(report())).toBe('Chain integrity: CLEAN (last 100 entries, seq 141..240)')
    expect(integrityHeadline(report({ clean: false, anomaly_count: 1 }))).toBe(
      'Chain integrity: 1 ANOMALIES (last 100 entries, seq 141..240)',
    )
    expect(integrityHeadline(report({ window: 0, first_seq: null, last_seq: null }))).toBe(
      'Chain integrity: EMPTY CHAIN (nothing to analyze)',
    )
    const shifted = report({
      provider_shift: {
        shifts: {
          xai: { baseline_pct: 6, current_pct: 50, delta_pct: 44 },
          anthropic: { baseline_pct: 94, current_pct: 50, delta_pct: -44.5 },
        },
      },
    })
    expect(shiftLines(shifted)).toEqual([
      'anthropic: 94.0% -> 50.0% (-44.5pp)',
      'xai: 6.0% -> 50.0% (+44.0pp)',
    ])
    expect(
      rateLines(report({ rate_anomalies: [{ baseline_rate: 20, current_rate: 5, change_pct: -75 }] })),
    ).toEqual(['20.0/h -> 5.0/h (-75.0%)'])
  })
  it('locates the window halves in the listing', () => {
    expect(windowHalves(report(), 240)).toEqual({ n: 100, mid: 50, start: 140 })
    expect(windowHalves(report({ window: 1 }), 240)).toBeNull()
  })
  it('computes the halves’ rates with the monitor’s formula', () => {
    // 20 rows 180 s apart, then 20 rows 720 s apart: 20 / (19*180 s) and 20 / (19*720 s).
    const s = 1_000_000_000n
    const r = halfRates(40, 0n, 19n * 180n * s, 20n * 180n * s, 20n * 180n * s + 19n * 720n * s)!
    expect(r.first).toBeCloseTo(20 / ((19 * 180) / 3600), 6)
    expect(r.second).toBeCloseTo(20 / ((19 * 720) / 3600), 6)
    expect(halfRates(40, 5n, 5n, 6n, 7n)).toBeNull()
  })
  it('clamps the window and lists anomalies that name a row', () => {
    expect(clampWindow(1)).toBe(2)
    expect(clampWindow(20000)).toBe(10000)
    expect(clampWindow(Number.NaN)).toBe(100)
    const marks = anomalyMarks(
      report({
        sequence_gaps: [{ after_seq: 10, before_seq: 13, missing_count: 2 }],
        timestamp_anomalies: [
          { seq: 0, type: 'burst', delta_sec: 0, detail: '12 entries in 1 second at epoch 1' },
          { seq: 50, type: 'backward', delta_sec: -2, detail: 'back' },
        ],
        hash_anomalies: [{ seq: 77, type: 'duplicate_canonical', detail: 'same canonical_hash as seq=3' }],
      }),
    )
    expect(marks.map((m) => [m.seq, m.category])).toEqual([
      [13, 'sequence'],
      [50, 'timestamp'],
      [77, 'hash'],
    ])
  })
})
