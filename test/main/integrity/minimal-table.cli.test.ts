// Python BIJOTEL's own test tables (issue 27 item 4): `tests/test_integrity.py` builds chains with
// five columns — seq, timestamp_ns, canonical_hash, prev_hash, canonical_body (reference §5.5) — and
// `integrity` reads exactly those (§5.2); `replay` reads seq and the body (§6.4). Here such tables
// are built in a temporary folder and the reference suite's behaviours are run on them through
// `bin/bijotel`, with the reports the reference derives for its fixtures (§12.4) byte for byte.
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../testing/cli'
import { beforeEvidence } from '../testing/evidence'
import { BASE_TS, bodyFor, rehash, SEC, seeded, TempChains, type SynthRow } from './testchain'

const MINIMAL = `seq INTEGER PRIMARY KEY, timestamp_ns INTEGER NOT NULL, canonical_hash TEXT NOT NULL,
  prev_hash TEXT NOT NULL, canonical_body BLOB NOT NULL`

let chains: TempChains
let n = 0
beforeAll(() => {
  ensureBuilt()
  chains = new TempChains()
})
afterAll(() => chains.dispose())

/** The reference test suite's table: only its five columns (`schema` may change the column types). */
function minimalTable(rows: SynthRow[], schema = MINIMAL): string {
  const path = `${chains.dir}/minimal-${++n}.db`
  const db = new Database(path)
  try {
    db.exec(`CREATE TABLE chain (${schema})`)
    const ins = db.prepare(
      'INSERT INTO chain (seq, timestamp_ns, canonical_hash, prev_hash, canonical_body) VALUES (?, ?, ?, ?, ?)',
    )
    db.transaction(() => {
      for (const r of rows) {
        const body = r.body === undefined ? bodyFor(r.provider ?? 'anthropic') : r.body
        ins.run(
          BigInt(r.seq),
          r.ts,
          r.hash ?? `hash-${String(r.seq).padStart(8, '0')}`,
          '0'.repeat(64),
          typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
        )
      }
    })()
  } finally {
    db.close()
  }
  return path
}

const integrity = (db: string, ...args: string[]) => bijotel(['integrity', '--db', db, ...args])

/** Rows with the seq numbers after index `after` moved up by `skip` (a gap of `skip` rows). */
function skipAfter(rows: SynthRow[], after: number, skip: number): SynthRow[] {
  return rehash(rows.map((r, i) => (i > after ? { ...r, seq: Number(r.seq) + skip } : r)))
}

describe('integrity on the five-column table (§5.5, expected reports §12.4)', () => {
  it('1, 15, 20: 30 clean rows → CLEAN, "Sequence: no gaps", exit 0', () => {
    const r = integrity(minimalTable(seeded(30)), '--window', '30')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('CLEAN')
    expect(r.stdout).toContain('Sequence: no gaps')
    expect(r.stdout.split('\n')[0]).toBe('Chain integrity: CLEAN (last 30 entries, seq 1..30)')
  })

  it('2, 21, 22: a skip of 2 after index 5 → the §12.4 single-gap report, exit 1', () => {
    const db = minimalTable(skipAfter(seeded(20), 5, 2))
    const j = integrity(db, '--window', '20', '--json')
    expect(j.code).toBe(1)
    expect(j.stdout).toBe(
      '{"window":20,"first_seq":1,"last_seq":22,"clean":false,"anomaly_count":1,"sequence_gaps":[{"after_seq":6,"before_seq":9,"missing_count":2}],"timestamp_anomalies":[],"hash_anomalies":[],"provider_shift":null,"rate_anomalies":[],"rotation_boundaries":[]}\n',
    )
    const t = integrity(db, '--window', '20')
    expect(t.code).toBe(1)
    expect(t.stdout).toContain('ANOMAL')
  })

  it('3: skips of 1 and 5 → 2 gaps, 6 missing', () => {
    const rows = skipAfter(skipAfter(seeded(20), 3, 1), 10, 5)
    const report = JSON.parse(integrity(minimalTable(rows), '--window', '20', '--json').stdout)
    expect(report.sequence_gaps).toHaveLength(2)
    expect(
      report.sequence_gaps.reduce((s: number, g: { missing_count: number }) => s + g.missing_count, 0),
    ).toBe(6)
  })

  it('5: a timestamp 730 s before the previous row → the §12.4 backward anomaly', () => {
    const rows = seeded(20)
    rows[10] = { ...rows[10]!, ts: rows[9]!.ts - 730n * SEC }
    const raw = integrity(minimalTable(rows), '--window', '20', '--json').stdout
    expect(raw).toContain(
      '"timestamp_anomalies":[{"seq":11,"type":"backward","delta_sec":-730.0,"detail":"timestamp went back 730.000s vs seq=10"}]',
    )
  })

  it('6: row 5 pushed 2 h after row 4 → the §12.4 large gap and backward pair', () => {
    const rows = seeded(20)
    rows[5] = { ...rows[5]!, ts: rows[4]!.ts + 7200n * SEC }
    const raw = integrity(minimalTable(rows), '--window', '20', '--json').stdout
    expect(raw).toContain(
      '"anomaly_count":2,"sequence_gaps":[],"timestamp_anomalies":[{"seq":6,"type":"large_gap","delta_sec":7200.0,"detail":"120.0 min gap since seq=5"},{"seq":7,"type":"backward","delta_sec":-6840.0,"detail":"timestamp went back 6840.000s vs seq=6"}]',
    )
  })

  it('7: 15 rows 50 ms apart → the §12.4 burst', () => {
    const raw = integrity(minimalTable(seeded(15, { spacingSec: 0.05 })), '--window', '15', '--json').stdout
    expect(raw).toContain(
      '"timestamp_anomalies":[{"seq":0,"type":"burst","delta_sec":0.0,"detail":"15 entries in 1 second at epoch 1700000000"}]',
    )
  })

  it('9: row 8 reuses hash-00000003 → the §12.4 duplicate', () => {
    const rows = seeded(20)
    rows[8] = { ...rows[8]!, hash: 'hash-00000003' }
    const raw = integrity(minimalTable(rows), '--window', '20', '--json').stdout
    expect(raw).toContain(
      '"hash_anomalies":[{"seq":9,"type":"duplicate_canonical","detail":"same canonical_hash as seq=3"}]',
    )
  })

  it('10, 11: one provider → no shift; 20 anthropic then 20 xai → the §12.4 shift and its text line', () => {
    expect(
      JSON.parse(integrity(minimalTable(seeded(40)), '--window', '40', '--json').stdout).provider_shift,
    ).toBeNull()
    const rows = [
      ...seeded(20),
      ...seeded(20, { provider: 'xai', start: BASE_TS + 20n * 180n * SEC }).map((r) => ({
        ...r,
        seq: Number(r.seq) + 20,
      })),
    ]
    const db = minimalTable(rehash(rows))
    const raw = integrity(db, '--window', '40', '--json').stdout
    expect(raw).toContain(
      '"provider_shift":{"shifts":{"anthropic":{"baseline_pct":100.0,"current_pct":0.0,"delta_pct":-100.0},"xai":{"baseline_pct":0.0,"current_pct":100.0,"delta_pct":100.0}}}',
    )
    expect(raw).toContain('"anomaly_count":1,')
    expect(integrity(db, '--window', '40').stdout).toContain('  WARN  anthropic: 100.0% -> 0.0% (-100.0pp)\n')
  })

  it('13, 14: rate drop and spike → the §12.4 rate anomalies', () => {
    const halves = (first: number, second: number): SynthRow[] => {
      const a = seeded(20, { spacingSec: first, provider: null })
      const last = a[19]!.ts
      const b = seeded(20, { spacingSec: second, provider: null, start: last + BigInt(second) * SEC })
      return rehash([...a, ...b.map((r) => ({ ...r, seq: Number(r.seq) + 20 }))])
    }
    const drop = integrity(minimalTable(halves(180, 720)), '--window', '40', '--json').stdout
    expect(drop).toContain(
      '"rate_anomalies":[{"baseline_rate":21.05,"current_rate":5.26,"change_pct":-75.0}]',
    )
    const spike = integrity(minimalTable(halves(720, 180)), '--window', '40', '--json').stdout
    expect(spike).toContain(
      '"rate_anomalies":[{"baseline_rate":5.26,"current_rate":21.05,"change_pct":300.0}]',
    )
  })

  it('16: a skip and a duplicate, window 40 → not clean, 1 gap, 1 duplicate', () => {
    const rows = skipAfter(seeded(30), 9, 1)
    rows[20] = { ...rows[20]!, hash: rows[2]!.hash }
    const r = integrity(minimalTable(rows), '--window', '40', '--json')
    const report = JSON.parse(r.stdout)
    expect(r.code).toBe(1)
    expect(report.sequence_gaps).toHaveLength(1)
    expect(report.hash_anomalies).toHaveLength(1)
    expect(report.anomaly_count).toBeGreaterThanOrEqual(2)
  })

  it('18: an empty five-column table → EMPTY CHAIN, exit 0; window 0 and null seqs in JSON', () => {
    const db = minimalTable([])
    const t = integrity(db)
    expect(t.stdout).toBe('Chain integrity: EMPTY CHAIN (nothing to analyze)\n')
    expect(beforeEvidence(integrity(db, '--evidence').stdout)).toBe(t.stdout)
    expect(t.code).toBe(0)
    expect(JSON.parse(integrity(db, '--json').stdout)).toMatchObject({
      window: 0,
      first_seq: null,
      last_seq: null,
      clean: true,
    })
  })

  it('23: a missing DB → exit 2, "not found"', () => {
    const r = integrity(`${chains.dir}/absent.db`)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('not found')
  })

  it('--all reads the five-column table too, and a seq that is not the rowid', () => {
    const rows = skipAfter(seeded(20), 5, 2)
    expect(integrity(minimalTable(rows), '--all', '--json').code).toBe(1)
    const loose = minimalTable(rows, MINIMAL.replace('INTEGER PRIMARY KEY', 'INTEGER NOT NULL'))
    expect(JSON.parse(integrity(loose, '--window', '20', '--json').stdout).sequence_gaps).toEqual([
      { after_seq: 6, before_seq: 9, missing_count: 2 },
    ])
  })

  it('a column the monitor reads is still required, and named', () => {
    const db = `${chains.dir}/four-columns.db`
    const d = new Database(db)
    d.exec(
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, prev_hash TEXT, canonical_body BLOB)',
    )
    d.close()
    const r = integrity(db)
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      `ERROR: not a BIJOTEL chain: the chain table in ${db} lacks required columns: canonical_hash\n`,
    )
  })

  it('with keys the rotation detector verifies, and says which columns it lacks', () => {
    const db = minimalTable(seeded(20))
    const r = integrity(db, '--secret-hex', '78'.repeat(32))
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      `ERROR: not a BIJOTEL chain: the chain table in ${db} lacks required columns: hmac_hash\n`,
    )
  })
})

describe('replay on the minimal tables (§6.6 CLI cases 15-19)', () => {
  const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex')
  const replayBody = (attrs: Record<string, unknown>): string =>
    JSON.stringify({ attributes: attrs, name: 'chat' })
  const rows = (): SynthRow[] => [
    {
      seq: 1,
      ts: BASE_TS,
      body: replayBody({
        'bijotel.replay.output_hash': sha('hello world'),
        'bijotel.replay.deterministic': true,
        'bijotel.replay.seed': 42,
        'bijotel.replay.model_version': 'claude-haiku-4-5',
      }),
    },
    {
      seq: 2,
      ts: BASE_TS + SEC,
      body: replayBody({ 'bijotel.replay.output_hash': sha('x'), 'bijotel.replay.deterministic': false }),
    },
    { seq: 3, ts: BASE_TS + 2n * SEC, body: replayBody({}) },
  ]
  let five: string
  let two: string
  beforeAll(() => {
    five = minimalTable(rows())
    two = `${chains.dir}/two-columns.db`
    const d = new Database(two)
    d.exec('CREATE TABLE chain (seq INTEGER PRIMARY KEY, canonical_body BLOB)')
    const ins = d.prepare('INSERT INTO chain VALUES (?, ?)')
    for (const r of rows()) ins.run(r.seq, Buffer.from(String(r.body)))
    d.close()
  })
  const replay = (db: string, ...args: string[]) => bijotel(['replay', '--db', db, ...args])

  it('15, 17: a matching --output and --output-file → MATCH, exit 0 (five and two columns)', () => {
    for (const db of [five, two]) {
      const r = replay(db, '--seq', '1', '--output', 'hello world')
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout.split('\n')[0]).toBe('=== Replay MATCH (seq=1) ===')
    }
    const f = `${chains.dir}/out.txt`
    writeFileSync(f, 'hello world')
    expect(replay(five, '--seq', '1', '--output-file', f).stdout).toContain('MATCH')
  })

  it('16, 9, 10, 11: mismatches and their reasons, exit 3', () => {
    const det = replay(five, '--seq', '1', '--output', 'other')
    expect(det.code).toBe(3)
    expect(det.stdout).toContain('MISMATCH')
    expect(det.stdout).toContain("SAME model version that produced the original ('claude-haiku-4-5')")
    expect(replay(five, '--seq', '2', '--output', 'y').stdout).toContain('did not record a seed')
    expect(replay(two, '--seq', '3', '--output', 'y').stdout).toContain('logged before v2.7.0')
  })

  it('18, 19: no output → exit 2 naming --output; unknown seq 999 → exit 1, not found', () => {
    const none = replay(five, '--seq', '1')
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('--output')
    const missing = replay(two, '--seq', '999', '--output', 'x')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('ERROR: seq 999 not found in chain\n')
  })

  it('the row check, asked for with a key, says which columns the table lacks', () => {
    const r = replay(two, '--seq', '1', '--output', 'hello world', '--secret-hex', '78'.repeat(32), '--json')
    const j = JSON.parse(r.stdout)
    expect(j.match).toBe(true)
    expect(j.row_verified).toBe(false)
    expect(j.row_detail).toBe(
      'row not checked: the chain table has no timestamp_ns, canonical_hash, prev_hash, hmac_hash columns',
    )
    expect(r.code).toBe(3)
    const onFive = JSON.parse(
      replay(five, '--seq', '1', '--output', 'hello world', '--secret-hex', '78'.repeat(32), '--json').stdout,
    )
    expect(onFive.row_detail).toBe('row not checked: the chain table has no hmac_hash column')
  })
})
