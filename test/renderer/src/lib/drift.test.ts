// The drift panel's derived facts: chart rows from the engine's buckets (empty buckets stay as gaps),
// the anomaly list in seq then dimension order over the groups shown, the group filter, the honest
// no-baseline note, and the sentence a screen reader hears.
import { describe, expect, it } from 'vitest'
import type {
  DriftGroup,
  DriftGroupDimension,
  DriftSeries,
  DriftSeriesAnomaly,
} from '../../../../src/shared/drift-types'
import type { Finding, FindingKind, VerifyVerdict } from '../../../../src/shared/verify-types'
import {
  anomalyRows,
  anyTruncated,
  baselineNote,
  driftPoints,
  driftRowsNote,
  driftSentence,
  formatDriftValue,
  groupKey,
  shownGroups,
} from '../../../../src/renderer/src/lib/drift'

const NS = 1_764_000_000_000_000_000n

function anomaly(seq: number, dimension: DriftSeriesAnomaly['dimension'], value: number): DriftSeriesAnomaly {
  return {
    seq,
    timestamp: '2025-11-24T16:00:00Z',
    timestamp_ns: (NS + BigInt(seq) * 60_000_000_000n).toString(),
    dimension,
    value,
    baseline_mean: 10,
    z_score: 4.5,
    iqr_distance: 2,
    method_triggered: 'both',
    severity: 'anomaly',
  }
}

function dim(
  dimension: DriftGroupDimension['dimension'],
  anomalies: DriftSeriesAnomaly[],
  points = 120,
  truncated = false,
): DriftGroupDimension {
  return {
    dimension,
    points,
    buckets: [
      { start_ns: NS.toString(), count: 2, mean: 5, min: 4, max: 6 },
      { start_ns: (NS + 60_000_000_000n).toString(), count: 0, mean: null, min: null, max: null },
    ],
    anomalies,
    anomalies_truncated: truncated,
  }
}

const groups: DriftGroup[] = [
  {
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    rows: 100,
    dimensions: [
      dim('input_tokens', [anomaly(90, 'input_tokens', 900)]),
      dim('ttfc_ms', [anomaly(85, 'ttfc_ms', 9)]),
    ],
  },
  {
    provider: 'openai',
    model: null,
    rows: 30,
    dimensions: [dim('cost', [anomaly(90, 'cost', 1)], 30, true)],
  },
]

describe('drift panel data', () => {
  it('chart rows keep empty buckets as gaps and carry the min–max band', () => {
    const rows = driftPoints(groups[0]!.dimensions[0]!)
    expect(rows).toEqual([
      { t: Number(NS / 1_000_000n), mean: 5, band: [4, 6], count: 2 },
      { t: Number(NS / 1_000_000n) + 60_000, mean: null, band: null, count: 0 },
    ])
  })

  it('lists anomalies in seq order, then in the reference order of the dimensions', () => {
    const rows = anomalyRows(groups)
    expect(rows.map((r) => `${r.seq}:${r.dimension}`)).toEqual(['85:ttfc_ms', '90:input_tokens', '90:cost'])
    expect(rows[2]!.group).toBe('openai / (no model)')
  })

  it('filters to one group by its key, and says when a shown group lists fewer than it found', () => {
    const series: DriftSeries = {
      from_ns: '0',
      to_ns: '1',
      bucket_ns: '1',
      window: 100,
      z_threshold: 3,
      groups,
      anomaly_count: 3,
    }
    expect(shownGroups(series, null)).toHaveLength(2)
    const one = shownGroups(series, groupKey(groups[0]!))
    expect(one.map((g) => g.provider)).toEqual(['anthropic'])
    expect(anyTruncated(one)).toBe(false)
    expect(anyTruncated(shownGroups(series, groupKey(groups[1]!)))).toBe(true)
    expect(shownGroups(null, null)).toEqual([])
    // A model named like a separator cannot be confused with another group.
    expect(groupKey({ provider: 'a', model: 'b/c' })).not.toBe(groupKey({ provider: 'a/b', model: 'c' }))
  })

  it('says why a dimension can show no anomaly', () => {
    expect(baselineNote(dim('cost', [], 0), 50)).toBe('no values')
    expect(baselineNote(dim('cost', [], 30), 50)).toBe(
      'fewer than 51 values (30): no baseline, nothing judged',
    )
    expect(baselineNote(dim('cost', [], 50), 50)).toContain('no baseline')
    expect(baselineNote(dim('cost', [], 51), 50)).toBeNull()
  })

  it('formats values by dimension and announces the end', () => {
    expect(formatDriftValue(1234, 'input_tokens')).toBe('1234')
    expect(formatDriftValue(0.25, 'cache_ratio')).toBe('0.250')
    expect(formatDriftValue(0.0012345, 'cost')).toBe('0.001234')
    expect(formatDriftValue(null, 'ttfc_ms')).toBe('—')
    const s = { window: 100, z_threshold: 3, from_ns: '0', to_ns: '0', bucket_ns: '0' }
    expect(driftSentence({ ...s, groups, anomaly_count: 3 })).toBe(
      'Payload drift finished: 3 anomalies in 2 provider/model groups.',
    )
    expect(driftSentence({ ...s, groups: [groups[1]!], anomaly_count: 0 })).toBe(
      'Payload drift finished: no anomalies in 1 provider/model group.',
    )
  })
})

// The payloads drift reads are vouched for only by the chain's verdict (the CLI's regression row
// check): an adversary's edited body must never pass unmentioned, and a verdict not yet known must
// never read as "all rows hold"; findings that do not touch a payload must not raise the note.
describe('driftRowsNote: what the verdict says of the payloads read', () => {
  function verdict(findings: Finding[], extra: Partial<VerifyVerdict> = {}): VerifyVerdict {
    return {
      valid: findings.length === 0,
      entries: 300,
      first_seq: 1,
      last_seq: 300,
      head_hmac: 'ab'.repeat(32),
      first_bad_seq: findings[0]?.from_seq ?? null,
      findings,
      key_segments: [],
      ...extra,
    } as VerifyVerdict
  }
  const f = (kind: FindingKind, from: number, to = from): Finding =>
    ({ kind, from_seq: from, to_seq: to, count: to - from + 1 }) as Finding

  it('no verdict yet, or a cancelled one: not verified yet — never silence', () => {
    expect(driftRowsNote(null)).toMatch(/not verified yet/)
    expect(driftRowsNote(verdict([], { cancelled: true }))).toMatch(/not verified yet/)
  })

  it('every row holds, or only findings that touch no payload: no note', () => {
    expect(driftRowsNote(verdict([]))).toBeNull()
    for (const kind of ['column_mismatch', 'seq_gap', 'deleted', 'truncated', 'rewritten'] as FindingKind[])
      expect(driftRowsNote(verdict([f(kind, 7, 9)])), kind).toBeNull()
    // A keyless verdict never checked an HMAC: a mismatch there is not its claim.
    expect(driftRowsNote(verdict([f('hmac_mismatch', 4)], { hmac_checked: false }))).toBeNull()
  })

  it('generated edits: every payload failure is named by its seqs, keyed or keyless', () => {
    let seed = 2026_12_07
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed % n
    }
    const kinds: FindingKind[] = ['body_hash_mismatch', 'link_mismatch', 'hmac_mismatch']
    for (let c = 0; c < 200; c++) {
      const keyless = next(2) === 0
      const findings: Finding[] = []
      let at = 1
      for (let i = 0, k = 1 + next(4); i < k; i++) {
        at += 1 + next(20)
        const to = at + next(3)
        findings.push(f(kinds[next(keyless ? 2 : 3)]!, at, to))
        at = to
      }
      const note = driftRowsNote(verdict(findings, keyless ? { hmac_checked: false } : {}))
      expect(note, JSON.stringify(findings)).not.toBeNull()
      for (const g of findings) {
        const run = g.from_seq === g.to_seq ? `${g.from_seq}` : `${g.from_seq}–${g.to_seq}`
        expect(note).toContain(run)
      }
      expect(note).toContain('prove nothing')
      expect(note!.includes('seen without a key')).toBe(keyless)
    }
  })

  it('many runs: the first few, then how many more', () => {
    const many = Array.from({ length: 12 }, (_, i) => f('body_hash_mismatch', 10 * (i + 1)))
    const note = driftRowsNote(verdict(many))!
    expect(note).toContain('seq 10, 20, 30, 40, 50, and 7 more')
  })
})
