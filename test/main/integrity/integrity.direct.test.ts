// The integrity monitor read by the direct reader must give exactly the SQLite source's run, on
// every fixture, in window and --all mode (windows that begin inside a leaf included), with and
// without keys.
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunIntegrityOptions } from '../../../src/main/integrity/analyze'
import { runIntegrity } from '../../../src/main/integrity/analyze'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { dbPath, expected, fixtureNames, secretInputs } from '../testing/fixtures'
import { withSource } from '../testing/sources'
import { parseSecrets } from '../../../src/main/chain/keys'
import { seeded, TempChains } from './testchain'

describe('integrity: direct reader = SQLite on a copy', () => {
  for (const name of fixtureNames()) {
    it(name, async () => {
      const keys = parseSecrets(secretInputs(expected(name).secrets))
      const cases: RunIntegrityOptions[] = [
        {},
        { window: 2 },
        { window: 3 },
        { window: 37 },
        { window: 99 },
        { window: 101 },
        { window: 149 },
        { window: 10000 },
        { all: true },
        { all: true, keys },
        { window: 50, keys },
        { all: true, thresholds: { burst_threshold: 1, large_gap_sec: 60 } },
      ]
      const chain = await OpenedChain.open(dbPath(name))
      try {
        for (const opts of cases) {
          const classic = await runIntegrity(chain.copy, opts)
          const direct = await withSource(dbPath(name), 'direct', (d) => runIntegrity(d, opts))
          expect(direct, JSON.stringify(opts)).toEqual(classic)
        }
        // Without the addon, cells are decoded and bodies scanned in TypeScript.
        process.env['BIJOTEL_NATIVE'] = '0'
        try {
          for (const opts of [{ window: 3 }, { window: 101 }, { window: 10000 }, { all: true }]) {
            const classic = await runIntegrity(chain.copy, opts)
            const direct = await withSource(dbPath(name), 'direct', (d) => runIntegrity(d, opts))
            expect(direct, `without the addon: ${JSON.stringify(opts)}`).toEqual(classic)
          }
        } finally {
          delete process.env['BIJOTEL_NATIVE']
        }
      } finally {
        chain.close()
      }
    })
  }
})

describe('integrity window read backward: timestamps that are not plain integers', () => {
  const temp = new TempChains()
  afterAll(() => temp.dispose())

  /** The run, or its one-line error, so a refusal is compared as exactly as a result. */
  const outcome = (run: Promise<unknown>): Promise<unknown> =>
    run.then(
      (r) => r,
      (e: unknown) => `error: ${(e as Error).message}`,
    )

  const LOOSE_SCHEMA =
    'seq INTEGER PRIMARY KEY, timestamp_ns, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT'

  /** A chain of `n` rows with these timestamps replaced (by seq). */
  function withTimestamps(n: number, edits: [number, (ts: bigint) => unknown][]): string {
    const rows = seeded(n, { spacingSec: 7 })
    const path = temp.write(rows, LOOSE_SCHEMA)
    const db = new Database(path)
    try {
      const set = db.prepare('UPDATE chain SET timestamp_ns = ? WHERE seq = ?')
      for (const [seq, value] of edits) set.run(value(rows[seq - 1]!.ts), seq)
    } finally {
      db.close()
    }
    return path
  }

  async function compare(path: string, windows: number[]): Promise<Set<string>> {
    const chain = await OpenedChain.open(path)
    const seen = new Set<string>()
    try {
      for (const window of windows) {
        const classic = await outcome(runIntegrity(chain.copy, { window }))
        const direct = await outcome(withSource(path, 'direct', (d) => runIntegrity(d, { window })))
        expect(direct, `window ${window}`).toEqual(classic)
        seen.add(typeof classic === 'string' ? classic.replace(/[^=]*seq=(\d+).*/, 'bad $1') : 'run')
      }
    } finally {
      chain.close()
    }
    return seen
  }

  // TEXT digits and a REAL holding an integer read as integers; 'yesterday' and 1.5 are refused.
  const text = (ts: bigint): string => String(ts)
  const real = (ts: bigint): number => Number(ts - (ts % 1024n))

  it('reports the oldest bad timestamp in the window, as SQLite does', async () => {
    // Several leaves; bad at seq 120 and 200, loose at 250 and 260.
    const path = withTimestamps(300, [
      [120, () => 'yesterday'],
      [200, () => 1.5],
      [250, text],
      [260, real],
    ])
    const seen = await compare(path, [2, 30, 45, 60, 101, 150, 200, 299, 300, 10000])
    // The cases this test is for all happened: clean runs over loose rows, each bad row named.
    expect([...seen].sort()).toEqual(['bad 120', 'bad 200', 'run'])
  })

  it('reads loose timestamps in a chain shorter than the window', async () => {
    const path = withTimestamps(90, [
      [3, text],
      [40, real],
      [88, text],
    ])
    expect([...(await compare(path, [5, 60, 89, 90, 91, 10000]))]).toEqual(['run'])
  })
})
