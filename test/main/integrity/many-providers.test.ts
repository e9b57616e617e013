// Integrity over chains naming tens of thousands of distinct providers (an insider's rows, each its
// own name, long and non-ASCII ones among them) beside a few common ones that shift between the
// halves: the report must equal the Python model of §5 (testdata/pymon.py) for windows of 10,000 and
// the whole chain, in bounded time. An honest generator: no change was needed (round 11 checked it —
// 10^5 distinct providers: integrity --all 6 s / 136 MB, --window 10000 1.5 s, stats 1.5 s).
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../../../src/main/chain/reader'
import { runIntegrity } from '../../../src/main/integrity/analyze'
import { reportJson } from '../../../src/main/integrity/report'
import { mulberry32 } from '../testing/prng'
import { sqliteSource } from '../testing/sources'
import { TempChains } from './testchain'

const hasPython = spawnSync('python3', ['--version']).status === 0
const chains = new TempChains()
afterAll(() => chains.dispose())

function write(seed: number, n: number): string {
  const rnd = mulberry32(seed)
  const path = join(chains.dir, `many-${seed}.db`)
  const db = new Database(path)
  try {
    db.exec('CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT)')
    const ins = db.prepare('INSERT INTO chain VALUES (?, ?, ?, ?, ?, ?)')
    const common = ['anthropic', 'xai', 'openai']
    const tail = ['', 'é', '\u{1F600}', 'x'.repeat(200)]
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const r = rnd()
        // Distinct names on most rows; a common one whose share moves between the halves.
        const share = i < n - 5_000 ? 0.1 : 0.45 // a shift in the last 10,000 rows' halves
        const p =
          r < share
            ? 'anthropic'
            : r < share + 0.05
              ? common[Math.floor(rnd() * common.length)]!
              : `p${i}-${tail[Math.floor(rnd() * tail.length)]!}`
        const body = JSON.stringify({ attributes: { 'gen_ai.provider.name': p } })
        const ts = 1_764_000_000_000_000_000n + BigInt(i) * BigInt(1 + Math.floor(rnd() * 3)) * 1_000_000_000n
        ins.run(i + 1, ts, Buffer.from(body), `h${i + 1}`, '0'.repeat(64), '0'.repeat(64))
      }
    })()
  } finally {
    db.close()
  }
  return path
} // prettier-ignore

describe.skipIf(!hasPython)('integrity over tens of thousands of providers', () => {
  it.each([1, 2])(
    'equals the Python model, window 10000 and the whole chain (seed %i)',
    async (seed) => {
      const path = write(seed, 30_000)
      for (const window of [10_000, 1_000_000]) {
        const py = spawnSync(
          'python3',
          [join(__dirname, 'testdata', 'pymon.py'), 'one', path, String(window)],
          {
            encoding: 'utf8',
            maxBuffer: 64 << 20,
          },
        )
        expect(py.status, py.stderr).toBe(0)
        const chain = await ChainFile.open(path)
        try {
          const t = Date.now()
          const run = await runIntegrity(sqliteSource(chain), window > 10_000 ? { all: true } : { window })
          expect(Date.now() - t).toBeLessThan(20_000)
          if (window === 10_000) expect(run.report.provider_shift).not.toBeNull()
          expect(reportJson(run.report)).toBe(py.stdout.trim())
        } finally {
          chain.close()
        }
      }
    },
    90_000,
  )
})
