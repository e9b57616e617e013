// A WAL whose commits change the schema: page 1 (sqlite_schema, file format §2.6) is written in a
// later commit than the chain's rows — the chain table renamed, dropped, recreated at another root,
// swapped with another table, given a column, or every page moved by a VACUUM. SQLite reads the
// schema as of the WAL's last valid commit (§4.3: frames up to the last commit frame whose
// checksums and salts hold). The generator cuts the WAL at every commit and breaks one frame at
// random places, and holds the direct reader to SQLite's rows, or to a decline.
import Database from 'better-sqlite3'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { appendRows, CHAIN_SCHEMA, GENESIS, scratchDir, spanRows } from '../../reliability/chainkit'
import { directReading, sqliteReading, type Reading } from '../../testing/readings'
import { mulberry32 } from '../../testing/prng'
import { walLayout } from '../../testing/wal-edit'

const KEY = Buffer.alloc(32, 7)
const scratch = scratchDir('wal-schema')
afterAll(() => scratch.cleanup())

/** What a commit between the chain's first rows and its last does to the schema. */
const CHANGES: Record<string, string> = {
  'rename the chain away': 'ALTER TABLE chain RENAME TO chain_old',
  'drop the chain': 'DROP TABLE chain',
  'rename, then a new chain': `ALTER TABLE chain RENAME TO chain_old; ${CHAIN_SCHEMA.replace(/EXISTS (idx_\w+)/g, 'EXISTS $1_new')}`,
  'drop, then a new chain': `DROP TABLE chain; ${CHAIN_SCHEMA}`,
  'swap with another table': `CREATE TABLE other AS SELECT * FROM chain WHERE seq % 2 = 0;
     ALTER TABLE chain RENAME TO chain_old; ALTER TABLE other RENAME TO chain`,
  'a column added': "ALTER TABLE chain ADD COLUMN extra TEXT DEFAULT 'x'",
  'an index on the chain': 'CREATE INDEX chain_ts ON chain(timestamp_ns)',
  'a view and a trigger': `CREATE VIEW v AS SELECT * FROM chain;
     CREATE TRIGGER t AFTER INSERT ON chain BEGIN SELECT 1; END`,
  'vacuum (every page moved)': 'VACUUM',
}

/**
 * A WAL-mode chain: 60 rows checkpointed into the file, 30 more in one commit, the schema change
 * in the next, then 25 rows into whatever table is called chain. Copied with its -wal while the
 * writer is open (closing it would checkpoint).
 */
function walChain(name: string, change: string): string {
  const src = join(scratch.dir, `${name}-writer.db`)
  const db = new Database(src)
  try {
    db.pragma('page_size = 1024')
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec(CHAIN_SCHEMA)
    db.exec('CREATE TABLE filler (x BLOB)')
    const rows = spanRows(115)
    let head = appendRows(db, KEY, rows.slice(0, 60), GENESIS)
    db.pragma('wal_checkpoint(TRUNCATE)')
    head = appendRows(db, KEY, rows.slice(60, 90), head)
    db.exec(change)
    db.exec('INSERT INTO filler VALUES (randomblob(2000))')
    const tables = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'chain'").pluck().get()
    const last =
      tables === 0 ? null : ((db.prepare('SELECT max(seq) FROM chain').pluck().get() as number | null) ?? 0)
    if (last !== null)
      appendRows(
        db,
        KEY,
        rows.slice(90).map((r, i) => ({ ...r, seq: BigInt(last + 1 + i) })),
        head,
      )
    const copy = join(scratch.dir, `${name}.db`)
    copyFileSync(src, copy)
    copyFileSync(`${src}-wal`, `${copy}-wal`)
    return copy
  } finally {
    db.close()
  }
}

/** The direct reader reads what SQLite reads, or declines. */
function agrees(path: string, what: string): 'same' | 'declined' {
  const oracle = sqliteReading(path, scratch.dir)
  const direct: Reading = directReading(path)
  if (direct.kind === 'declined' || direct.kind === 'refused') return 'declined'
  const said = JSON.stringify(oracle, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
  expect(oracle.kind, `${what}: SQLite ${said.slice(0, 200)}`).toBe('rows')
  if (oracle.kind === 'rows' && direct.kind === 'rows') {
    const text = (r: unknown[][]): string[] => r.map((x) => x.map(String).join('|'))
    const [a, b] = [text(direct.rows), text(oracle.rows)]
    const at = a.findIndex((x, i) => x !== b[i])
    expect({ rows: a.length, firstDiff: at, direct: a[at]?.slice(0, 120) }, what).toEqual({
      rows: b.length,
      firstDiff: a.length === b.length ? -1 : at,
      direct: b[at]?.slice(0, 120),
    })
  }
  return 'same'
}

describe('a WAL that changes the schema mid-way is read as SQLite reads it, or declined', () => {
  for (const [name, change] of Object.entries(CHANGES))
    it(name, () => {
      const base = walChain(name.replace(/\W+/g, '-'), change)
      const wal = readFileSync(`${base}-wal`)
      const layout = walLayout(wal)!
      const frameBytes = 24 + layout.pageSize
      const commits = layout.frames.flatMap((f, i) => (f.commit > 0 ? [i] : []))
      expect(commits.length).toBeGreaterThanOrEqual(3)
      const tally = { same: 0, declined: 0 }
      const path = join(scratch.dir, 'case.db')
      const write = (bytes: Buffer): void => {
        copyFileSync(base, path)
        writeFileSync(`${path}-wal`, bytes)
      }
      // The WAL cut after every commit frame, and one frame past it (a torn next commit).
      for (const c of commits)
        for (const extra of [0, 1]) {
          const end = 32 + (c + 1 + extra) * frameBytes
          if (end > wal.length) continue
          write(wal.subarray(0, end))
          tally[agrees(path, `${name}: WAL cut after frame ${c + extra}`)]++
        }
      // One frame's page broken (its checksum no longer holds): SQLite stops before its commit.
      const rnd = mulberry32(name.length * 31337)
      for (let k = 0; k < 8; k++) {
        const f = layout.frames[Math.floor(rnd() * layout.frames.length)]!
        const bytes = Buffer.from(wal)
        bytes[f.at + 24 + Math.floor(rnd() * layout.pageSize)]! ^= 1 + Math.floor(rnd() * 255)
        write(bytes)
        tally[agrees(path, `${name}: frame at ${f.at} (page ${f.page}) broken`)]++
      }
      expect(tally.same + tally.declined).toBeGreaterThan(0)
      console.log(`${name}: ${JSON.stringify(tally)}`)
    })
})
