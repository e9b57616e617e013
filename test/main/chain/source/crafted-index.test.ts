// An index is evidence too: its records are the crafter's to set apart from the table's (a partial
// index whose WHERE the schema text no longer says leaves rows out), and sqlite_stat1 (evidence as
// well) can call it narrow (`sz=1`), so that SQLite's planner scans it for any query it covers. What
// SQLite reads of a table is the table's b-tree: the copy path's queries of the evidence read it NOT
// INDEXED, as the direct reader does. Generated files: a stored seq with a non-integer value hidden
// from an index on seq (the integer check read the index, then the pass ended in an internal
// error), and a `cas` row hidden from a covering index (inspect showed it on the direct reader and
// not through the copy).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendRows, CHAIN_SCHEMA, GENESIS, Rng, scratchDir } from '../../reliability/chainkit'
import { ensureBuilt, timedRun } from '../../testing/cli'
import { KEY, KEY_HEX, rowsOf } from '../../testing/exact-chains'

const scratch = scratchDir('crafted-index')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const READERS: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]

/** Index `name` on `table` (`cols`) leaving out the rows `where` excludes, its schema text saying no WHERE. */
function hiddenRowsIndex(
  db: Database.Database,
  name: string,
  table: string,
  cols: string,
  where: string,
): void {
  db.exec(`CREATE INDEX ${name} ON ${table} (${cols}) WHERE ${where}`)
  db.exec('ANALYZE')
  // Its own statistics row, whatever ANALYZE wrote (none for an index it found empty).
  db.prepare('DELETE FROM sqlite_stat1 WHERE idx = ?').run(name)
  db.prepare('INSERT INTO sqlite_stat1 VALUES (?, ?, ?)').run(table, name, '9 1 sz=1')
  db.unsafeMode(true)
  db.pragma('writable_schema = ON')
  db.prepare('UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = ?').run(
    ` WHERE ${where}`,
    '',
    name,
  )
  db.unsafeMode(false)
}

/** The craft holds: SQLite's planner scans the index for `query`. */
function scansIndex(path: string, query: string, name: string): boolean {
  const db = new Database(path, { readonly: true })
  try {
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${query}`).all() as { detail: string }[]
    return plan.some((p) => p.detail.includes(`COVERING INDEX ${name}`))
  } finally {
    db.close()
  }
}

describe('a stored seq whose non-integer value an index on seq hides', () => {
  const rng = new Rng(0x1dec)
  const bad: [string, unknown][] = [
    ['TEXT', 'x12'],
    ['REAL', 12.5],
    ['NULL', null],
    ['BLOB', Buffer.from('0c', 'hex')],
  ]
  for (const [k, [type, value]] of bad.entries())
    it(`a ${type} seq: refused in one line on both readers, never an internal error`, () => {
      const dir = join(scratch.dir, `seq-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      const db = new Database(path)
      db.exec(
        CHAIN_SCHEMA.replace('seq INTEGER PRIMARY KEY AUTOINCREMENT', rng.pick(['seq INT', 'seq INTEGER'])),
      )
      const n = rng.int(12, 40)
      appendRows(db, KEY, rowsOf(n, 0), GENESIS)
      db.exec('UPDATE chain SET seq = rowid')
      db.prepare('UPDATE chain SET seq = ? WHERE rowid = ?').run(value, rng.int(1, n))
      hiddenRowsIndex(db, 'by_seq', 'chain', 'seq', "typeof(seq) = 'integer'")
      db.close()
      expect(scansIndex(path, "SELECT count(*) FROM chain WHERE typeof(seq) <> 'integer'", 'by_seq')).toBe(
        true,
      )
      for (const env of READERS)
        for (const args of [
          ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
          ['list', '--limit', '3'],
          ['stats'],
        ]) {
          const r = timedRun(args, path, env)
          const said = `${args[0]} ${JSON.stringify(env)}: exit ${r.status}: ${r.stderr}`
          expect(r.status, said).not.toBe(0)
          expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
          expect(r.stderr, said).toMatch(/have a seq that is not an integer/)
          expect(r.stderr, said).not.toMatch(/internal error/)
        }
    }, 120_000)
})

describe('a cas row a covering index hides', () => {
  const rng = new Rng(0xca5)
  for (let k = 0; k < 3; k++)
    it(`case ${k}: inspect shows the table's cas entry on both readers`, () => {
      const dir = join(scratch.dir, `cas-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      const db = new Database(path)
      db.exec(CHAIN_SCHEMA)
      const n = rng.int(8, 20)
      appendRows(db, KEY, rowsOf(n, 0), GENESIS)
      db.exec(`CREATE TABLE cas (body_hash TEXT PRIMARY KEY, body BLOB NOT NULL, first_seen_ns INTEGER NOT NULL,
                                 ref_count INTEGER NOT NULL DEFAULT 1)`)
      const seq = rng.int(1, n)
      const hash = rng.bytes(32).toString('hex')
      db.prepare('UPDATE chain SET semantic_body_hash = ? WHERE seq = ?').run(hash, seq)
      for (let i = 0; i < rng.int(0, 5); i++)
        db.prepare('INSERT INTO cas VALUES (?, ?, ?, ?)').run(
          rng.bytes(32).toString('hex'),
          Buffer.from('{}'),
          1,
          1,
        )
      db.prepare('INSERT INTO cas VALUES (?, ?, ?, ?)').run(hash, Buffer.from('{}'), 1764000000123456789n, 7)
      hiddenRowsIndex(
        db,
        'cover',
        'cas',
        'ref_count, first_seen_ns, body, body_hash',
        `body_hash <> '${hash}'`,
      )
      db.close()
      expect(scansIndex(path, 'SELECT body_hash, first_seen_ns, ref_count, body FROM cas', 'cover')).toBe(
        true,
      )
      const outs = READERS.map((env) => {
        const r = timedRun(['inspect', String(seq)], path, env)
        expect(r.status, r.stderr).toBe(0)
        return r.stdout
      })
      // The table's entry (its ref_count 7), the same on both readers.
      expect(outs[0]).toMatch(/=== CAS Entry ===[^]*ref_count: +7\n/)
      expect(outs[1]).toEqual(outs[0])
    }, 120_000)
})
