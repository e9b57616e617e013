// The detectors on small hand-made chains: the reference's own test cases (§5.5), the derived
// reports of §12.4 byte for byte, every threshold exactly at and just past its limit, and the edges.
import { afterAll, describe, expect, it } from 'vitest'
import type { IntegrityRun } from '../../../src/shared/integrity-types'
import { ChainFile } from '../../../src/main/chain/reader'
import { runIntegrity, type RunIntegrityOptions } from '../../../src/main/integrity/analyze'
import { assembleReport, reportJson } from '../../../src/main/integrity/report'
import { analyzeRows, loadRows } from './row-detectors'
import { READERS, withSource } from '../testing/sources'
import { BASE_TS, bodyFor, SEC, seeded, TempChains, type SynthRow } from './testchain'
import { integrityText } from '../../../src/main/integrity/text'
import {
  BURST_THRESHOLD,
  DEFAULT_THRESHOLDS,
  LARGE_GAP_SEC,
  MIN_SPLIT_SIZE,
  PROVIDER_SHIFT_PCT,
  RATE_TOL,
  resolveThresholds,
} from '../../../src/main/integrity/thresholds'
import { epochSecond } from '../../../src/main/integrity/timestamps'

const chains = new TempChains()
afterAll(() => chains.dispose())

async function run(
  rows: SynthRow[],
  opts: RunIntegrityOptions = {},
): Promise<IntegrityRun & { json: string; text: string; allJson: string }> {
  const path = chains.write(rows)
  const out = []
  // Through both row sources, which must agree.
  for (const reader of READERS) {
    out.push(
      await withSource(path, reader, async (source) => {
        const r = await runIntegrity(source, { window: opts.all ? undefined : (opts.window ?? 100), ...opts })
        // Every case is also run in --all mode: with the window covering the chain it must agree.
        const all = await runIntegrity(source, { ...opts, all: true })
        return { ...r, json: reportJson(r.report), text: integrityText(r), allJson: reportJson(all.report) }
      }),
    )
  }
  expect(out[0]).toEqual(out[1])
  return out[1]!
}

const ns = (sec: number): bigint => BigInt(Math.round(sec * 1e9))

describe('constants are the reference defaults (§5.1)', () => {
  it('values', () => {
    expect([BURST_THRESHOLD, LARGE_GAP_SEC, PROVIDER_SHIFT_PCT, RATE_TOL, MIN_SPLIT_SIZE]).toEqual([
      10, 3600, 20, 0.5, 10,
    ])
    expect(DEFAULT_THRESHOLDS).toEqual({
      burst_threshold: 10,
      large_gap_sec: 3600,
      provider_shift_pct: 20,
      rate_tol: 0.5,
      min_split_size: 10,
    })
  })
  it('overrides are validated', () => {
    expect(resolveThresholds({ burst_threshold: 3 }).burst_threshold).toBe(3)
    expect(() => resolveThresholds({ burst_threshold: 1.5 })).toThrow(/burst_threshold/)
    expect(() => resolveThresholds({ min_split_size: 0 })).toThrow(/min_split_size/)
    expect(() => resolveThresholds({ large_gap_sec: -1 })).toThrow(/large_gap_sec/)
    expect(() => resolveThresholds({ rate_tol: NaN })).toThrow(/rate_tol/)
  })
})

describe('reference test cases (§5.5) and derived reports (§12.4)', () => {
  it('1/15: clean chains', async () => {
    const r30 = await run(seeded(30), { window: 30 })
    expect(r30.report.clean).toBe(true)
    expect(r30.report.sequence_gaps).toEqual([])
    const r50 = await run(seeded(50), { window: 50 })
    expect(r50.report).toMatchObject({
      clean: true,
      anomaly_count: 0,
      window: 50,
      first_seq: 1,
      last_seq: 50,
    })
    expect(r50.json).toBe(
      '{"window":50,"first_seq":1,"last_seq":50,"clean":true,"anomaly_count":0,"sequence_gaps":[],"timestamp_anomalies":[],"hash_anomalies":[],"provider_shift":null,"rate_anomalies":[],"rotation_boundaries":[]}',
    )
    expect(r50.allJson).toBe(r50.json)
  })

  it('2: single gap — the §12.4 report byte for byte', async () => {
    const rows = seeded(20).map((r, i) =>
      i > 5
        ? { ...r, seq: Number(r.seq) + 2, hash: `hash-${String(Number(r.seq) + 2).padStart(8, '0')}` }
        : r,
    )
    const r = await run(rows)
    expect(r.json).toBe(
      '{"window":20,"first_seq":1,"last_seq":22,"clean":false,"anomaly_count":1,"sequence_gaps":[{"after_seq":6,"before_seq":9,"missing_count":2}],"timestamp_anomalies":[],"hash_anomalies":[],"provider_shift":null,"rate_anomalies":[],"rotation_boundaries":[]}',
    )
    expect(r.allJson).toBe(r.json)
  })

  it('3: two gaps, 6 missing in total', async () => {
    let shift = 0
    const rows = seeded(20).map((r, i) => {
      if (i === 4) shift += 1
      if (i === 11) shift += 5
      return { ...r, seq: Number(r.seq) + shift, hash: `h${i}` }
    })
    const r = await run(rows)
    expect(r.report.sequence_gaps).toHaveLength(2)
    expect(r.report.sequence_gaps.reduce((n, g) => n + g.missing_count, 0)).toBe(6)
  })

  it('4/12: evenly spaced rows have no timestamp or rate anomalies', async () => {
    const r = await run(seeded(40), { window: 40 })
    expect(r.report.timestamp_anomalies).toEqual([])
    expect(r.report.rate_anomalies).toEqual([])
  })

  it('5: backward step', async () => {
    const rows = seeded(20)
    rows[10] = { ...rows[10]!, ts: rows[9]!.ts - 730n * SEC }
    const r = await run(rows)
    expect(r.report.timestamp_anomalies).toEqual([
      { seq: 11, type: 'backward', delta_sec: -730, detail: 'timestamp went back 730.000s vs seq=10' },
    ])
    expect(r.json).toContain(
      '"timestamp_anomalies":[{"seq":11,"type":"backward","delta_sec":-730.0,"detail":"timestamp went back 730.000s vs seq=10"}]',
    )
    expect(r.allJson).toBe(r.json)
  })

  it('6: large gap, then the backward step back onto the schedule (anomaly_count 2)', async () => {
    const rows = seeded(20)
    rows[5] = { ...rows[5]!, ts: rows[4]!.ts + 7200n * SEC }
    const r = await run(rows)
    expect(r.json).toContain(
      '"timestamp_anomalies":[{"seq":6,"type":"large_gap","delta_sec":7200.0,"detail":"120.0 min gap since seq=5"},{"seq":7,"type":"backward","delta_sec":-6840.0,"detail":"timestamp went back 6840.000s vs seq=6"}]',
    )
    expect(r.report.anomaly_count).toBe(2)
    expect(r.allJson).toBe(r.json)
  })

  it('7: burst of 15 rows 50 ms apart', async () => {
    const r = await run(seeded(15, { spacingSec: 0.05 }), { window: 15 })
    expect(r.json).toContain(
      '"timestamp_anomalies":[{"seq":0,"type":"burst","delta_sec":0.0,"detail":"15 entries in 1 second at epoch 1700000000"}]',
    )
    expect(r.report.timestamp_anomalies[0]!.detail).toContain('1 second')
    expect(r.allJson).toBe(r.json)
  })

  it('8/9: duplicates', async () => {
    expect((await run(seeded(30))).report.hash_anomalies).toEqual([])
    const rows = seeded(20)
    rows[8] = { ...rows[8]!, hash: 'hash-00000003' }
    const r = await run(rows)
    expect(r.json).toContain(
      '"hash_anomalies":[{"seq":9,"type":"duplicate_canonical","detail":"same canonical_hash as seq=3"}]',
    )
    expect(r.allJson).toBe(r.json)
  })

  it('10/11: provider shift', async () => {
    expect((await run(seeded(40))).report.provider_shift).toBeNull()
    const rows = seeded(40).map((r, i) => (i >= 20 ? { ...r, body: bodyFor('xai') } : r))
    const r = await run(rows)
    expect(r.json).toContain(
      '"provider_shift":{"shifts":{"anthropic":{"baseline_pct":100.0,"current_pct":0.0,"delta_pct":-100.0},"xai":{"baseline_pct":0.0,"current_pct":100.0,"delta_pct":100.0}}}',
    )
    expect(r.report.anomaly_count).toBe(1)
    expect(r.text).toContain('  WARN  anthropic: 100.0% -> 0.0% (-100.0pp)\n')
    expect(r.text).toContain('  WARN  xai: 0.0% -> 100.0% (+100.0pp)\n')
    expect(r.allJson).toBe(r.json)
  })

  it('13/14: rate drop and spike', async () => {
    const drop = [
      ...seeded(20, { provider: null }),
      ...seeded(20, { provider: null, spacingSec: 720, start: BASE_TS + 20n * 180n * SEC }),
    ].map((r, i) => ({ ...r, seq: i + 1, hash: `hash-${i + 1}` }))
    const r = await run(drop)
    expect(r.json).toContain(
      '"rate_anomalies":[{"baseline_rate":21.05,"current_rate":5.26,"change_pct":-75.0}]',
    )
    expect(r.report.rate_anomalies).toHaveLength(1)
    expect(r.text).toContain('Rate: 21.05/h -> 5.26/h (-75.0%)\n')
    const spike = [
      ...seeded(20, { provider: null, spacingSec: 720 }),
      ...seeded(20, { provider: null, start: BASE_TS + 20n * 720n * SEC }),
    ].map((x, i) => ({ ...x, seq: i + 1, hash: `hash-${i + 1}` }))
    const s = await run(spike)
    expect(s.json).toContain(
      '"rate_anomalies":[{"baseline_rate":5.26,"current_rate":21.05,"change_pct":300.0}]',
    )
    expect(s.text).toContain('Rate: 5.26/h -> 21.05/h (+300.0%)\n')
    expect(s.allJson).toBe(s.json)
  })

  it('16: gap and duplicate together', async () => {
    const rows = seeded(30).map((r, i) => (i >= 10 ? { ...r, seq: Number(r.seq) + 1 } : r))
    rows[20] = { ...rows[20]!, hash: 'hash-00000002' }
    const r = await run(rows, { window: 40 })
    expect(r.report.clean).toBe(false)
    expect(r.report.sequence_gaps).toHaveLength(1)
    expect(r.report.hash_anomalies).toHaveLength(1)
    expect(r.report.anomaly_count).toBeGreaterThanOrEqual(2)
  })

  it('17: the dict survives a JSON round trip', async () => {
    const rows = seeded(20).map((r, i) => (i >= 10 ? { ...r, seq: Number(r.seq) + 1 } : r))
    const r = await run(rows)
    expect(JSON.parse(JSON.stringify(r.report))).toEqual(r.report)
    expect(JSON.parse(r.json)).toEqual(r.report)
    expect(r.report.sequence_gaps[0]!.missing_count).toBe(1)
  })

  it('18: empty chain', async () => {
    const r = await run([])
    expect(r.report).toEqual({
      window: 0,
      first_seq: null,
      last_seq: null,
      clean: true,
      anomaly_count: 0,
      sequence_gaps: [],
      timestamp_anomalies: [],
      hash_anomalies: [],
      provider_shift: null,
      rate_anomalies: [],
      rotation_boundaries: [],
    })
    expect(r.text).toBe('Chain integrity: EMPTY CHAIN (nothing to analyze)\n')
    expect(r.allJson).toBe(r.json)
  })

  it('19: missing DB', async () => {
    await expect(ChainFile.open(`${chains.dir}/nope.db`)).rejects.toMatchObject({ code: 'db_missing' })
  })
})

describe('thresholds exactly at and just past their limits', () => {
  const inOneSecond = (k: number): SynthRow[] =>
    Array.from({ length: k }, (_, i) => ({
      seq: i + 1,
      ts: BASE_TS + 5n * SEC + BigInt(i) * 1_000_000n,
      hash: `h${i}`,
    }))

  it('bursts: 10 rows in a second = none, 11 = burst', async () => {
    expect((await run(inOneSecond(10))).report.timestamp_anomalies).toEqual([])
    const r = await run(inOneSecond(11))
    expect(r.report.timestamp_anomalies).toEqual([
      { seq: 0, type: 'burst', delta_sec: 0, detail: '11 entries in 1 second at epoch 1700000005' },
    ])
    expect(r.allJson).toBe(r.json)
  })

  it('bursts: the second boundary is exact (ns ...999 999 999 and ...000 000 000 are different seconds)', async () => {
    const rows = inOneSecond(11)
    rows[10] = { ...rows[10]!, ts: BASE_TS + 6n * SEC } // first ns of the next second
    expect((await run(rows)).report.timestamp_anomalies).toEqual([])
    rows[10] = { ...rows[10]!, ts: BASE_TS + 6n * SEC - 1n } // last ns of the same second
    expect((await run(rows)).report.timestamp_anomalies).toHaveLength(1)
  })

  it('large gap: exactly 3600 s = none, 3600 s + 1 ns = large_gap', async () => {
    const rows: SynthRow[] = [
      { seq: 1, ts: BASE_TS },
      { seq: 2, ts: BASE_TS + 3600n * SEC },
    ]
    expect((await run(rows)).report.timestamp_anomalies).toEqual([])
    rows[1] = { seq: 2, ts: BASE_TS + 3600n * SEC + 1n }
    const r = await run(rows)
    expect(r.report.timestamp_anomalies).toEqual([
      { seq: 2, type: 'large_gap', delta_sec: 3600, detail: '60.0 min gap since seq=1' },
    ])
    expect(r.json).toContain('"delta_sec":3600.0,')
  })

  it('backward: equal timestamps are not backward, 1 ns back is', async () => {
    const rows: SynthRow[] = [
      { seq: 1, ts: BASE_TS },
      { seq: 2, ts: BASE_TS },
      { seq: 3, ts: BASE_TS - 1n },
    ]
    const r = await run(rows)
    expect(r.report.timestamp_anomalies).toEqual([
      { seq: 3, type: 'backward', delta_sec: -0, detail: 'timestamp went back 0.000s vs seq=2' },
    ])
    // Python: round(-1e-09, 3) is -0.0
    expect(r.json).toContain('"delta_sec":-0.0,')
  })

  // n = 20 (mid 10): share 0% -> 20% is exactly 20.0 in floating point.
  const providerRows = (n: number, baseCount: number, currCount: number): SynthRow[] => {
    const mid = Math.floor(n / 2)
    return seeded(n).map((r, i) => {
      const inBase = i < mid
      const k = inBase ? i : i - mid
      const xai = inBase ? k < baseCount : k < currCount
      return { ...r, body: bodyFor(xai ? 'xai' : 'anthropic') }
    })
  }

  it('provider shift: exactly 20.0 points = none, 30 = shift', async () => {
    expect((await run(providerRows(20, 0, 2))).report.provider_shift).toBeNull()
    expect((await run(providerRows(20, 3, 5))).report.provider_shift).toBeNull()
    const r = await run(providerRows(20, 0, 3))
    expect(r.json).toContain(
      '"provider_shift":{"shifts":{"anthropic":{"baseline_pct":100.0,"current_pct":70.0,"delta_pct":-30.0},"xai":{"baseline_pct":0.0,"current_pct":30.0,"delta_pct":30.0}}}',
    )
  })

  it('provider shift: float math as Python (n=30, mathematically exactly 20 points everywhere)', async () => {
    // xai 5/15*100 -> 8/15*100 differs by 20.000000000000007 (fires), anthropic's -19.999999999999993 does not
    const r = await run(providerRows(30, 5, 8))
    expect(r.json).toContain(
      '"provider_shift":{"shifts":{"xai":{"baseline_pct":33.3,"current_pct":53.3,"delta_pct":20.0}}}',
    )
    // 2/15 -> 5/15: xai 19.999999999999993 (no), anthropic 13/15 -> 10/15 is -20.000000000000014 (fires)
    const r2 = await run(providerRows(30, 2, 5))
    expect(r2.json).toContain(
      '"provider_shift":{"shifts":{"anthropic":{"baseline_pct":86.7,"current_pct":66.7,"delta_pct":-20.0}}}',
    )
    expect(r2.text).toContain('  WARN  anthropic: 86.7% -> 66.7% (-20.0pp)\n')
    // 3/15 -> 6/15: neither side exceeds 20.0 in floating point
    expect((await run(providerRows(30, 3, 6))).report.provider_shift).toBeNull()
  })

  it('provider and rate detectors need n >= 2 x MIN_SPLIT_SIZE', async () => {
    expect((await run(providerRows(19, 0, 9))).report.provider_shift).toBeNull()
    expect((await run(providerRows(20, 0, 10))).report.provider_shift).not.toBeNull()
    expect(
      (await run(providerRows(19, 0, 9), { thresholds: { min_split_size: 9 } })).report.provider_shift,
    ).not.toBeNull()
  })

  // n = 20: first half spans fs seconds, second half ss seconds; rate = 10 / (secs / 3600).
  const rateRows = (fs: number, ss: number): SynthRow[] =>
    Array.from({ length: 20 }, (_, i) => {
      const ts = i < 10 ? BASE_TS + ns((fs * i) / 9) : BASE_TS + ns(fs + 60) + ns((ss * (i - 10)) / 9)
      return { seq: i + 1, ts, body: bodyFor(null), hash: `h${i}` }
    })

  it('rate: ratio exactly 1.5 = none, exactly 0.5 = none, 2.0 = anomaly', async () => {
    expect((await run(rateRows(900, 600))).report.rate_anomalies).toEqual([])
    expect((await run(rateRows(600, 1200))).report.rate_anomalies).toEqual([])
    const r = await run(rateRows(1200, 600))
    expect(r.json).toContain(
      '"rate_anomalies":[{"baseline_rate":30.0,"current_rate":60.0,"change_pct":100.0}]',
    )
  })

  it('rate: float math as Python (1620 s vs 1080 s gives ratio 1.5000000000000002 > 1.5, fires)', async () => {
    const r = await run(rateRows(1620, 1080))
    expect(r.json).toContain(
      '"rate_anomalies":[{"baseline_rate":22.22,"current_rate":33.33,"change_pct":50.0}]',
    )
    expect(r.text).toContain('Rate: 22.22/h -> 33.33/h (+50.0%)\n')
  })

  it('rate: a half with no elapsed time gives no anomaly', async () => {
    const rows = rateRows(900, 600).map((r, i) => (i < 10 ? { ...r, ts: BASE_TS } : r))
    expect((await run(rows, { thresholds: { burst_threshold: 100 } })).report.rate_anomalies).toEqual([])
  })

  it('overridden thresholds move the limits', async () => {
    expect(
      (await run(inOneSecond(5), { thresholds: { burst_threshold: 4 } })).report.timestamp_anomalies,
    ).toHaveLength(1)
    const gap: SynthRow[] = [
      { seq: 1, ts: BASE_TS },
      { seq: 2, ts: BASE_TS + 61n * SEC },
    ]
    expect((await run(gap, { thresholds: { large_gap_sec: 60 } })).report.timestamp_anomalies[0]!.type).toBe(
      'large_gap',
    )
    expect(
      (await run(providerRows(20, 0, 2), { thresholds: { provider_shift_pct: 19.9 } })).report.provider_shift,
    ).not.toBeNull()
    expect(
      (await run(rateRows(900, 600), { thresholds: { rate_tol: 0.49 } })).report.rate_anomalies,
    ).toHaveLength(1)
  })
})

describe('window edges', () => {
  it('one row', async () => {
    const r = await run(seeded(1))
    expect(r.report).toMatchObject({ window: 1, first_seq: 1, last_seq: 1, clean: true })
    expect(r.text.split('\n')[0]).toBe('Chain integrity: CLEAN (last 1 entries, seq 1..1)')
  })
  it('window larger than the chain loads the chain', async () => {
    const r = await run(seeded(7), { window: 10_000 })
    expect(r.report).toMatchObject({ window: 7, first_seq: 1, last_seq: 7 })
  })
  it('window = last N rows by seq, not by insertion order or time', async () => {
    const rows = seeded(30).reverse()
    const r = await run(rows, { window: 10 })
    expect(r.report).toMatchObject({ window: 10, first_seq: 21, last_seq: 30 })
  })
  it('window out of range is rejected as bad_argument (1, 10001, 0, -5, 2.5)', async () => {
    const path = chains.write(seeded(3))
    for (const reader of READERS)
      await withSource(path, reader, async (chain) => {
        for (const w of [1, 10_001, 0, -5, 2.5, NaN]) {
          await expect(runIntegrity(chain, { window: w })).rejects.toMatchObject({ code: 'bad_argument' })
        }
        expect((await runIntegrity(chain, { window: 2 })).report.window).toBe(2)
        expect((await runIntegrity(chain, { window: 10_000 })).report.window).toBe(3)
        expect((await runIntegrity(chain, {})).report.window).toBe(3) // default 100
      })
  })
})

describe('robustness where Python crashes or is unspecified', () => {
  it('invalid UTF-8, non-JSON, non-object, NULL and TEXT bodies count as provider unknown', async () => {
    const rows = seeded(20, { provider: 'unknown' })
    const bodies: (Buffer | string | null)[] = [
      Buffer.from([0xff, 0xfe, 0x80]),
      'not json',
      '[1,2]',
      null,
      '{"attributes":[1]}',
      '{"attributes":{"gen_ai.system":"unknown"}}',
    ]
    bodies.forEach((b, i) => (rows[i] = { ...rows[i]!, body: b }))
    const r = await run(rows)
    expect(r.report.clean).toBe(true)
  })
  it('numeric, object and gen_ai.system providers', async () => {
    const mk = (attrs: unknown): string => JSON.stringify({ attributes: attrs })
    const rows = seeded(20).map((r, i) =>
      i < 10
        ? { ...r, body: mk({ 'gen_ai.provider.name': 42 }) }
        : {
            ...r,
            body: i < 15 ? mk({ 'gen_ai.provider.name': { a: 1 } }) : mk({ 'gen_ai.system': 'openai' }),
          },
    )
    const r = await run(rows)
    expect(Object.keys(r.report.provider_shift!.shifts)).toEqual(['42', 'openai', 'unknown'])
    expect(r.json).toContain(
      '{"shifts":{"42":{"baseline_pct":100.0,"current_pct":0.0,"delta_pct":-100.0},"openai":',
    )
  })
  it('a provider named __proto__ stays an ordinary key', async () => {
    const rows = seeded(20).map((r, i) => (i >= 10 ? { ...r, body: bodyFor('__proto__') } : r))
    const r = await run(rows)
    expect(Object.keys(r.report.provider_shift!.shifts)).toEqual(['__proto__', 'anthropic'])
    expect(r.json).toContain('"__proto__":{"baseline_pct":0.0,"current_pct":100.0,"delta_pct":100.0}')
  })
  it('non-ASCII provider names are \\u-escaped and sorted by code point', async () => {
    const rows = seeded(40).map((r, i) => (i >= 20 ? { ...r, body: bodyFor(i % 2 ? 'é-ai' : '😀') } : r))
    const r = await run(rows)
    expect(Object.keys(r.report.provider_shift!.shifts)).toEqual(['anthropic', 'é-ai', '😀'])
    expect(r.json).toContain(
      '"\\u00e9-ai":{"baseline_pct":0.0,"current_pct":50.0,"delta_pct":50.0},"\\ud83d\\ude00":',
    )
  })
  it('empty and NULL hashes are never duplicates; a third copy also points at the first', async () => {
    const rows = seeded(10)
    rows[1] = { ...rows[1]!, hash: '' }
    rows[2] = { ...rows[2]!, hash: '' }
    rows[3] = { ...rows[3]!, hash: null }
    rows[4] = { ...rows[4]!, hash: null }
    rows[6] = { ...rows[6]!, hash: 'hash-00000001' }
    rows[8] = { ...rows[8]!, hash: 'hash-00000001' }
    const r = await run(rows)
    expect(r.report.hash_anomalies).toEqual([
      { seq: 7, type: 'duplicate_canonical', detail: 'same canonical_hash as seq=1' },
      { seq: 9, type: 'duplicate_canonical', detail: 'same canonical_hash as seq=1' },
    ])
    expect(r.allJson).toBe(r.json)
  })
  it('bursts are listed in order of first appearance, even when time goes back', async () => {
    const later = BASE_TS + 100n * SEC
    const rows: SynthRow[] = [
      ...Array.from({ length: 11 }, (_, i) => ({ seq: i + 1, ts: later + BigInt(i) })),
      ...Array.from({ length: 12 }, (_, i) => ({ seq: i + 12, ts: BASE_TS + BigInt(i) })),
      { seq: 24, ts: later + 50n },
    ]
    const r = await run(rows)
    expect(r.report.timestamp_anomalies.map((a) => a.detail)).toEqual([
      'timestamp went back 100.000s vs seq=11',
      '12 entries in 1 second at epoch 1700000100',
      '12 entries in 1 second at epoch 1700000000',
    ])
    expect(r.allJson).toBe(r.json)
  })
  it('negative timestamps: seconds by floor division like Python', async () => {
    expect([-1n, -SEC, -SEC - 1n, 0n, SEC - 1n, -2n * SEC + 1n].map(epochSecond)).toEqual([
      -1n,
      -1n,
      -2n,
      0n,
      0n,
      -2n,
    ])
    const rows: SynthRow[] = Array.from({ length: 11 }, (_, i) => ({
      seq: i + 1,
      ts: -SEC + BigInt(i) * 10_000_000n,
    }))
    const r = await run(rows)
    expect(r.report.timestamp_anomalies).toEqual([
      { seq: 0, type: 'burst', delta_sec: 0, detail: '11 entries in 1 second at epoch -1' },
    ])
    expect(r.allJson).toBe(r.json)
  })
  it('a non-integer timestamp_ns is a clear error, not a crash', async () => {
    const path = chains.write(
      [
        { seq: 1, ts: BASE_TS },
        { seq: 2, ts: BASE_TS },
      ],
      'seq INTEGER PRIMARY KEY, timestamp_ns, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT',
    )
    const Database = (await import('better-sqlite3')).default
    const w = new Database(path)
    w.prepare("UPDATE chain SET timestamp_ns = 'soon' WHERE seq = 2").run()
    w.close()
    for (const reader of READERS)
      await withSource(path, reader, async (c2) => {
        await expect(runIntegrity(c2, { window: 10 })).rejects.toMatchObject({
          code: 'corrupt',
          message: expect.stringContaining('seq=2'),
        })
        await expect(runIntegrity(c2, { all: true })).rejects.toMatchObject({ code: 'corrupt' })
      })
  })
})

describe('--all on a chain larger than any window equals the in-memory algorithm (row-detectors.ts)', () => {
  it('12 000 rows with every kind of anomaly', async () => {
    const rows: SynthRow[] = []
    let seq = 0
    let ts = BASE_TS
    for (let i = 0; i < 12_000; i++) {
      seq += i === 3000 ? 3 : 1
      ts +=
        i === 5000 ? -90n * SEC : i === 7000 ? 5000n * SEC : i >= 9000 && i < 9020 ? 10_000_000n : 7n * SEC
      const provider = i >= 6000 && i % 2 === 0 ? 'xai' : 'anthropic'
      rows.push({
        seq,
        ts,
        body: bodyFor(provider),
        hash: i === 11_000 || i === 11_500 ? 'hash-7' : `hash-${seq}`,
      })
    }
    const chain = await ChainFile.open(chains.write(rows))
    try {
      const t = resolveThresholds()
      const all = (
        await withSource(chain.snapshot.dbPath, 'sqlite-copy', (s) => runIntegrity(s, { all: true }))
      ).report
      const mem = assembleReport(analyzeRows(loadRows(chain.db), t))
      expect(all).toEqual(mem)
      expect(reportJson(all)).toBe(reportJson(mem))
      expect(all.window).toBe(12_000)
      expect(all.sequence_gaps).toEqual([{ after_seq: 3000, before_seq: 3003, missing_count: 2 }])
      const types = all.timestamp_anomalies.map((a) => a.type)
      expect(types.slice(0, 2)).toEqual(['backward', 'large_gap'])
      expect(types.slice(2).length).toBeGreaterThan(0)
      expect(types.slice(2).every((t) => t === 'burst')).toBe(true)
      expect(all.hash_anomalies.map((a) => a.seq)).toEqual([11_003, 11_503])
      expect(all.provider_shift).not.toBeNull()
    } finally {
      chain.close()
    }
  })
})
