// `integrity --all` over a chain large enough for worker threads: the parts each worker extracts and
// sorts, merged for the duplicate and burst counts, must give exactly the one-thread report and the
// SQLite path's report — with duplicates and bursts straddling the workers' boundary.
import Database from 'better-sqlite3'
import { statSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EARLY_MIN_BYTES } from '../../../src/main/chain/columns/parallel'
import { bijotel, ensureBuilt } from './testcli'
import { BASE_TS, bodyFor, SEC, TempChains, type SynthRow } from './testchain'

const chains = new TempChains()
beforeAll(() => ensureBuilt())
afterAll(() => chains.dispose())

const N = 64_000
const PROVIDERS = ['anthropic', 'openai', 'google', 'mistral']

function rows(pad = 0): SynthRow[] {
  const out: SynthRow[] = []
  for (let i = 0; i < N; i++) {
    const seq = i + 1
    // Mostly 7 s apart; bursts of 12 rows in one second at the start, in the middle (across the
    // workers' split) and near the end; one clock step backward.
    let ts = BASE_TS + BigInt(i) * 7n * SEC
    const inBurst = (from: number): boolean => i >= from && i < from + 12
    for (const from of [100, N / 2 - 6, N - 40])
      if (inBurst(from)) ts = BASE_TS + BigInt(from) * 7n * SEC + BigInt(i)
    if (i === 20_000) ts -= 3600n * SEC
    // Duplicate hashes: pairs within one half, and pairs whose copies sit in different halves.
    const dupOf =
      i === 500 ? 10 : i === N - 3 ? 7 : i === N / 2 + 1 ? N / 2 - 2 : i === 40_000 ? 39_999 : null
    const hash = `hash-${String(dupOf === null ? seq : dupOf + 1).padStart(8, '0')}`
    const provider = i < N / 2 ? PROVIDERS[i % 2]! : PROVIDERS[2 + (i % 2)]!
    const body = pad === 0 ? bodyFor(provider) : bodyWith(provider, pad)
    out.push({ seq, ts, body, hash })
  }
  return out
}

/** A body of about `pad` more bytes (a chain large enough to start its workers early). */
function bodyWith(provider: string, pad: number): string {
  return JSON.stringify({ attributes: { 'gen_ai.provider.name': provider, 'x.pad': 'p'.repeat(pad) } })
}

/** `integrity --all --json` on `db` (anomalies expected, exit 1, nothing on stderr). */
function allReport(db: string, env: Record<string, string>): string {
  const r = bijotel(['integrity', '--db', db, '--all', '--json'], env)
  expect(r.stderr).toBe('')
  expect(r.code).toBe(1)
  return r.stdout
}

/** The report on 2 workers, after requiring 3 workers, 1 thread and SQLite to give it too. */
function sameEverywhere(db: string): string {
  const two = allReport(db, { BIJOTEL_WORKERS: '2' })
  expect(allReport(db, { BIJOTEL_WORKERS: '3' })).toBe(two)
  expect(allReport(db, { BIJOTEL_WORKERS: '1' })).toBe(two)
  expect(allReport(db, { BIJOTEL_READER: 'sqlite' })).toBe(two)
  return two
}

describe('integrity --all on worker threads = one thread = SQLite', () => {
  it(`${N} rows with duplicates and bursts across the split`, () => {
    const report = JSON.parse(sameEverywhere(chains.write(rows()))) as {
      hash_anomalies: unknown[]
      timestamp_anomalies: { type: string }[]
    }
    expect(report.hash_anomalies).toHaveLength(4)
    expect(report.timestamp_anomalies.filter((a) => a.type === 'burst')).toHaveLength(3)
  })

  it(`a chain of ${EARLY_MIN_BYTES >> 20} MB or more starts its workers before listing the leaves: the same report`, () => {
    const db = chains.write(rows(700))
    expect(statSync(db).size).toBeGreaterThanOrEqual(EARLY_MIN_BYTES)
    expect((JSON.parse(sameEverywhere(db)) as { hash_anomalies: unknown[] }).hash_anomalies).toHaveLength(4)
  })

  it('workers started early for a large file with too few rows for them are ended: the CLI exits', () => {
    const db = chains.write(rows(2400).slice(0, 16_000))
    expect(statSync(db).size).toBeGreaterThanOrEqual(EARLY_MIN_BYTES)
    expect(allReport(db, { BIJOTEL_WORKERS: '2' })).toBe(allReport(db, { BIJOTEL_WORKERS: '1' }))
  })

  it('a column worker that declines a row sends the pass to SQLite: the report, then a prompt exit', () => {
    // A REAL body the direct reader will not turn into bytes (SQLite's float text is SQLite's to
    // write): the worker reading that half declines, the other half is dropped, and the copy path
    // reads the whole chain. The process must end as soon as the report is out.
    const db = chains.write(rows())
    const w = new Database(db)
    try {
      w.prepare('UPDATE chain SET canonical_body = 1.5 WHERE seq = ?').run(N - 1000)
    } finally {
      w.close()
    }
    const t0 = performance.now()
    const r = bijotel(['integrity', '--db', db, '--all', '--json'], {
      BIJOTEL_WORKERS: '2',
      BIJOTEL_TIMING: '1',
    })
    const seconds = (performance.now() - t0) / 1000
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain('reader sqlite-copy')
    expect(JSON.parse(r.stdout)).toMatchObject({ window: N })
    // A generous bound: the copy and the pass take seconds; a process kept alive by a worker or a
    // timer would run into bijotel()'s 120 s timeout (code null).
    expect(seconds).toBeLessThan(90)
  })
})
