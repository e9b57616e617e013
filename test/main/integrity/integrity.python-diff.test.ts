// Differential test against an independent Python re-implementation of the spec
// (testdata/pymon.py): random chains written by Python's sqlite3, and Python's own float, round()
// and f-string formatting. Skipped when python3 is not installed.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../../../src/main/chain/reader'
import { sqliteSource } from '../testing/sources'
import { runIntegrity } from '../../../src/main/integrity/analyze'
import { reportJson } from '../../../src/main/integrity/report'
import { TempChains } from './testchain'

const hasPython = spawnSync('python3', ['--version']).status === 0
const chains = new TempChains()
afterAll(() => chains.dispose())

describe.skipIf(!hasPython)('agrees with a Python implementation of §5 on random chains', () => {
  it('120 chains x windows 20, 100, 10000 and --all', async () => {
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pymon.py'), 'batch', chains.dir, '120'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    })
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as { path: string; window: number; json: string }[]
    expect(cases.length).toBe(480)
    const diffs: string[] = []
    let anomalies = 0
    for (const c of cases) {
      const chain = await ChainFile.open(c.path)
      try {
        const run = await runIntegrity(
          sqliteSource(chain),
          c.window > 10_000 ? { all: true } : { window: c.window },
        )
        const got = reportJson(run.report)
        anomalies += run.report.anomaly_count
        if (got !== c.json) diffs.push(`${c.path} window ${c.window}:\n  py ${c.json}\n  ts ${got}`)
      } finally {
        chain.close()
      }
    }
    expect(diffs.slice(0, 5)).toEqual([])
    expect(anomalies).toBeGreaterThan(500) // the random chains do exercise the detectors
  })
})
