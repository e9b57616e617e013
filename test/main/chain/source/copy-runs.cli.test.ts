// The SQLite-copy path cuts verify's worker runs by the chain's seq span (not by a count made
// first) and takes each run's predecessor from the run's own scan. An adversary controls the seqs:
// gaps make the span far larger than the rows, and a table whose seq is not the rowid can repeat
// seqs, making it smaller. Whatever the span says, the verdict must cover exactly the rows SQLite
// counts, and say what the direct reader says where both read the file. Through the built CLI, so
// the runs go to worker threads (a chain above PARALLEL_MIN_ROWS).
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PARALLEL_MIN_ROWS } from '../../../../src/main/base/workers'
import { bijotel, ensureBuilt } from '../../testing/cli'

const SECRET = '6d7f8e9a0b1c2d3e4f5061728394a5b6c7d8e9f00112233445566778899aabbc'
const ROWS = PARALLEL_MIN_ROWS + 4000
const SQLITE = { BIJOTEL_READER: 'sqlite' }

interface Verdict {
  valid: boolean
  entries: number
  first_seq: number | null
  last_seq: number | null
  findings: { kind: string; from_seq: number; to_seq: number; count: number }[]
}

let dir = ''
let base = ''

function verify(db: string, env: Record<string, string> = {}): Verdict {
  const r = bijotel(['verify', '--db', db, '--secret-hex', SECRET, '--no-recover', '--json'], env)
  expect(r.stderr).not.toMatch(/\n\s+at /) // no stack trace
  expect([0, 3]).toContain(r.code)
  return JSON.parse(r.stdout) as Verdict
}

function sqliteCount(db: string): number {
  const d = new Database(db, { readonly: true })
  try {
    return Number(d.prepare('SELECT count(*) FROM chain NOT INDEXED').pluck().get())
  } finally {
    d.close()
  }
}

beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'bijotel-copy-runs-'))
  base = join(dir, 'base.db')
  const r = bijotel(['demo', '--db', base, '--count', String(ROWS), '--secret-hex', SECRET, '--seed', '7'])
  expect(r.code).toBe(0)
}, 300_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('verify through the SQLite copy, runs cut by the seq span', () => {
  // Gaps after a position, of a size: the span overshoots the rows by `gap`, so later runs start
  // past the end of the scan or hold a fraction of the rows.
  const gaps: [number, bigint][] = [
    [1, 1n],
    [Math.floor(ROWS / 3), 1_000_000n],
    [Math.floor(ROWS / 2), 7n],
    [ROWS - 2, 2n ** 60n],
    [Math.floor((2 * ROWS) / 3), BigInt(ROWS) * 3n],
  ]
  it.each(gaps)(
    'a gap after seq %i of %s: every row counted, findings as the direct reader gives them',
    (after, gap) => {
      const db = join(dir, `gap-${after}-${gap}.db`)
      copyFileSync(base, db)
      const d = new Database(db)
      // Two steps, so no intermediate seq collides with a row not moved yet.
      d.prepare('UPDATE chain SET seq = -seq WHERE seq > ?').run(after)
      d.prepare('UPDATE chain SET seq = -seq + ? WHERE seq < 0').run(gap)
      d.close()
      const viaCopy = verify(db, SQLITE)
      const direct = verify(db)
      expect(viaCopy.entries).toBe(sqliteCount(db))
      expect(viaCopy.entries).toBe(ROWS)
      expect(viaCopy.valid).toBe(false)
      expect(viaCopy.findings).toEqual(direct.findings)
      expect([viaCopy.first_seq, viaCopy.last_seq]).toEqual([direct.first_seq, direct.last_seq])
    },
    300_000,
  )

  // seq not the rowid (the direct reader declines such a table; SQLite reads it): repeated seqs
  // make the span smaller than the rows, and the last run must still read to the end. (At 9000
  // repeats the child ended without an exit code in this kit, probably spawnSync's 1 MB output
  // limit on the findings; not looked into.)
  it.each([1, 2500, 4000])(
    '%i seqs repeated in a table whose seq is not the rowid: every row counted',
    (dups) => {
      const db = join(dir, `dups-${dups}.db`)
      const src = new Database(base, { readonly: true })
      const schema = (
        src.prepare("SELECT sql FROM sqlite_master WHERE name = 'chain'").pluck().get() as string
      ).replace('seq INTEGER PRIMARY KEY AUTOINCREMENT', 'seq INTEGER NOT NULL')
      src.close()
      const d = new Database(db)
      d.exec(schema)
      d.prepare('ATTACH ? AS src').run(base)
      d.exec('INSERT INTO chain SELECT * FROM src.chain ORDER BY seq')
      d.prepare('INSERT INTO chain SELECT * FROM src.chain WHERE seq <= ? ORDER BY seq').run(dups)
      d.exec('DETACH src')
      d.close()
      const v = verify(db)
      expect(v.entries).toBe(sqliteCount(db))
      expect(v.entries).toBe(ROWS + dups)
      expect(v.valid).toBe(false)
    },
    300_000,
  )
})
