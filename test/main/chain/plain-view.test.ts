// The plain view of an auto-vacuum copy (src/main/chain/plain-view.ts): generated auto-vacuum chains
// (FULL and INCREMENTAL, page sizes 512–65536, bodies around the overflow threshold, rows deleted and
// the file vacuumed) give a file without auto-vacuum holding the same chain rows, rowids and
// sqlite_sequence, which the direct reader takes; a copy whose chain values claim more bytes than it
// holds (overflow chains looped onto themselves) is refused in one line, at once, nothing left behind;
// the evidence itself is never written beside; and the schema's text, the evidence's own, runs as
// its one CREATE TABLE alone — statements a crafted schema appends after it (SQLite's open ignores
// them) never run, whatever they name, and its CHECK constraints judge no row.
import Database from 'better-sqlite3'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { plainView } from '../../../src/main/chain/plain-view'
import { openDirect } from '../../../src/main/chain/direct/open'
import { GENESIS, Rng } from '../reliability/chainkit'
import { loopEveryCell, loopOneValue } from '../testing/looped-cells'
import { CHAIN_DDL, insert, openWriter, version } from '../testing/sealed-writer'

const root = mkdtempSync(join(tmpdir(), 'bijotel-plain-view-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const NO_FILE = { dev: -1, ino: -1 }

/** What a view left in the copy's folder (SQLite's own -wal and -shm of the copy aside). */
const left = (dir: string): string[] => readdirSync(dir).filter((f) => !f.startsWith('chain.db'))

function rowsOf(path: string): unknown[] {
  const db = new Database(path, { readonly: true })
  db.defaultSafeIntegers(true)
  try {
    return [
      db.prepare('SELECT rowid, * FROM chain ORDER BY rowid').raw().all(),
      db.prepare('SELECT * FROM sqlite_sequence').raw().all(),
    ]
  } finally {
    db.close()
  }
}

/** The chain table's rows as SQLite scans its own b-tree (NOT INDEXED), seq order. */
function tableRows(path: string): unknown[][] {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare('SELECT * FROM chain NOT INDEXED ORDER BY seq').raw().all() as unknown[][]
  } finally {
    db.close()
  }
}

function chainFile(dir: string, rng: Rng, big: boolean): string {
  const path = join(dir, 'chain.db')
  const pageSize = big ? rng.pick([512, 1024, 4096]) : rng.pick([512, 1024, 4096, 8192, 65536])
  const db = openWriter(path, {
    pageSize,
    journal: rng.pick(['wal', 'delete'] as const),
    autoVacuum: rng.pick(['FULL', 'INCREMENTAL'] as const),
  })
  db.exec(CHAIN_DDL)
  const key = rng.bytes(32)
  let prev = GENESIS
  const n = rng.int(5, 60)
  for (let s = 1n; s <= BigInt(n); s++) {
    const pad = big ? rng.int(3000, 9000) : rng.int(10, Math.max(20, pageSize))
    const v = version(rng, key, s, prev, pad, 'plain')
    insert(db, v)
    prev = v.hmac
  }
  if (rng.chance(0.5)) db.prepare('DELETE FROM chain WHERE seq % ? = 0').run(rng.int(2, 5))
  if (rng.chance(0.3)) db.pragma('incremental_vacuum')
  db.close()
  return path
}

describe('plain view of an auto-vacuum copy', () => {
  for (let n = 0; n < 24; n++)
    it(`seed ${n}: same rows, rowids and sequence, no auto-vacuum, read by the direct reader`, () => {
      const dir = mkdtempSync(join(root, 'case-'))
      const copy = chainFile(dir, new Rng(0x91a1 + n), false)
      const view = plainView(copy, NO_FILE)
      if (typeof view === 'string') throw new Error(view)
      try {
        expect(rowsOf(view.path)).toEqual(rowsOf(copy))
        const db = new Database(view.path, { readonly: true })
        expect(db.pragma('auto_vacuum', { simple: true })).toBe(0)
        db.close()
        openDirect(view.path).close()
      } finally {
        view.release()
      }
      expect(left(dir)).toEqual([])
    })

  for (let n = 0; n < 6; n++)
    it(`seed ${n}: looped overflow chains are refused in one line, nothing left`, () => {
      const dir = mkdtempSync(join(root, 'loop-'))
      const copy = chainFile(dir, new Rng(0x100b + n), true)
      expect(loopEveryCell(copy, 'chain', 6, 1.5)).toBeGreaterThan(0)
      const t = Date.now()
      const view = plainView(copy, NO_FILE)
      expect(typeof view).toBe('string')
      expect(view as string).toMatch(/claim \d+ bytes in a file of \d+/)
      expect(view as string).not.toContain('\n')
      expect(Date.now() - t).toBeLessThan(5000)
      expect(left(dir)).toEqual([])
    })

  // sqlite_sequence's rows are copied too (the chain's, found by name): a name or a seq value of the
  // chain's row, or another table's name, claiming more than the file over a looped overflow chain
  // was read whole and written into the view (400 MB: 8 s of a recovering verify on the old code).
  for (let n = 0; n < 8; n++)
    it(`seed ${n}: a looped sqlite_sequence value is refused in one line, at once, nothing left`, () => {
      const rng = new Rng(0x5e90 + n)
      const dir = mkdtempSync(join(root, 'seq-loop-'))
      const copy = chainFile(dir, rng, false)
      const column = rng.pick([0, 1])
      const db = new Database(copy)
      // Values long enough to overflow any page size the generator picks, the chain's own row kept.
      if (column === 1 || rng.chance(0.5))
        db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'chain'").run(
          '9'.repeat(rng.int(70_000, 90_000)),
        )
      for (let i = 0; i < rng.int(1, 3); i++) {
        const name = `t${i}_${'n'.repeat(rng.int(70_000, 90_000))}`
        db.exec(
          `CREATE TABLE "${name}" (id INTEGER PRIMARY KEY AUTOINCREMENT, x); INSERT INTO "${name}" (x) VALUES (1)`,
        )
      }
      db.close()
      const size = statSync(copy).size
      const looped = loopOneValue(copy, 'sqlite_sequence', column, rng.int(0, 7), rng.int(2 * size, 6 * size))
      writeFileSync(copy, looped)
      const view = plainView(copy, NO_FILE)
      expect(typeof view, 'the view was made').toBe('string')
      expect(view as string).toMatch(/claim \d+ bytes in a file of \d+/)
      expect(view as string).not.toContain('\n')
      expect(left(dir)).toEqual([])
    })

  // An index holding every column covers the view's copy; sqlite_stat1 calling it narrow makes the
  // planner scan it instead of the table. Its records made to differ from the table's (a partial
  // index whose WHERE the schema text no longer says: rows left out) were the view's rows on the
  // old code.
  for (let n = 0; n < 8; n++)
    it(`seed ${n}: a covering index set apart from the table is not read, the table is`, () => {
      const rng = new Rng(0xc0e1 + n)
      const dir = mkdtempSync(join(root, 'index-'))
      const copy = chainFile(dir, rng, false)
      const db = new Database(copy)
      const names = (db.prepare('PRAGMA table_info(chain)').all() as { name: string }[])
        .map((c) => `"${c.name}"`)
        .filter((c) => c !== '"seq"')
      const m = rng.int(2, 5)
      const where = ` WHERE seq % ${m} <> ${rng.int(0, m - 1)}`
      db.exec(`CREATE INDEX cover ON chain (${rng.pick([names, [...names].reverse()]).join(', ')})${where}`)
      db.exec('ANALYZE')
      db.prepare("UPDATE sqlite_stat1 SET stat = ? WHERE idx = 'cover'").run('9 1 sz=1')
      db.unsafeMode(true)
      db.pragma('writable_schema = ON')
      db.prepare("UPDATE sqlite_master SET sql = replace(sql, ?, '') WHERE name = 'cover'").run(where)
      db.close()
      const table = tableRows(copy)
      const check = new Database(copy, { readonly: true })
      const plan = check.prepare('EXPLAIN QUERY PLAN SELECT * FROM chain').all() as { detail: string }[]
      const viaIndex = check.prepare('SELECT count(*) FROM chain').pluck().get()
      check.close()
      // The craft holds: the planner scans the index, and the index lacks rows of the table.
      expect(plan.map((p) => p.detail).join()).toMatch(/COVERING INDEX cover/)
      expect(viaIndex).toBeLessThan(table.length)
      const view = plainView(copy, NO_FILE)
      if (typeof view === 'string') throw new Error(view)
      try {
        expect(tableRows(view.path)).toEqual(table)
      } finally {
        view.release()
      }
    })

  it('the evidence itself is refused, nothing written beside it', () => {
    const dir = mkdtempSync(join(root, 'self-'))
    const path = chainFile(dir, new Rng(7), false)
    const st = statSync(path)
    expect(plainView(path, { dev: st.dev, ino: st.ino })).toBe('the copy is the evidence itself')
    expect(readdirSync(dir)).toEqual(['chain.db'])
  })
})

/** Statements appended to the chain's CREATE TABLE in sqlite_master, each writing `target` if run. */
function tails(target: string): string[] {
  const q = `'${target.replace(/'/g, "''")}'`
  return [
    `; ATTACH ${q} AS p; CREATE TABLE p.t(x)`,
    `;ATTACH DATABASE ${q} AS p;CREATE TABLE p.t AS SELECT 1`,
    `; VACUUM INTO ${q}`,
    ` /* c */ ; -- c\n ATTACH ${q} AS "p"; CREATE TABLE "p"."t"(x); INSERT INTO p.t VALUES (1)`,
    `;\n\tattach ${q} as p;create table p.t(x)`,
    `; ATTACH ${q} AS src; CREATE TABLE src.t(x)`,
  ]
}

/** Five sealed rows in an auto-vacuum file, left open with its schema writable (a crafter's edit). */
function schemaWritable(path: string, journal: 'wal' | 'delete', rng: Rng): Database.Database {
  const db = openWriter(path, { pageSize: 4096, journal, autoVacuum: 'FULL' })
  db.exec(CHAIN_DDL)
  let prev = GENESIS
  const key = rng.bytes(32)
  for (let s = 1n; s <= 5n; s++) {
    const v = version(rng, key, s, prev, 100, 'schema')
    insert(db, v)
    prev = v.hmac
  }
  db.unsafeMode(true)
  db.pragma('writable_schema = ON')
  return db
}

describe('the schema text of a crafted copy', () => {
  const rng = new Rng(0x5c1e)
  for (const [n, make] of tails('TARGET').entries())
    for (const journal of ['wal', 'delete'] as const)
      it(`tail ${n} (${journal}): only its CREATE TABLE runs, nothing else is written`, () => {
        const dir = mkdtempSync(join(root, 'schema-'))
        const target = join(dir, 'written.db')
        const path = join(dir, 'chain.db')
        const db = schemaWritable(path, journal, rng)
        const tail = tails(target)[n]!
        expect(make).toContain('TARGET')
        db.prepare("UPDATE sqlite_master SET sql = sql || ? WHERE name = 'chain'").run(tail)
        db.close()
        // SQLite opens it as the plain table it was: the tail is ignored.
        const check = new Database(path, { readonly: true })
        expect(check.prepare('SELECT count(*) FROM chain').pluck().get()).toBe(5)
        check.close()
        const before = readFileSync(path)
        const view = plainView(path, NO_FILE)
        expect(existsSync(target)).toBe(false)
        expect(readFileSync(path).equals(before)).toBe(true)
        if (typeof view === 'string') {
          expect(view).not.toContain('\n')
          expect(view).toMatch(/followed by other statements \(SQLite never writes that; they were not run\)/)
        } else {
          try {
            expect(rowsOf(view.path)).toEqual(rowsOf(path))
          } finally {
            view.release()
          }
        }
        expect(left(dir)).toEqual([])
      })

  for (const check of ['seq < 0', "canonical_hash = 'x'", 'length(canonical_body) < 0'])
    it(`a CHECK (${check}) that every row fails is not judged: the rows are copied as SQLite reads them`, () => {
      const dir = mkdtempSync(join(root, 'check-'))
      const path = join(dir, 'chain.db')
      const db = schemaWritable(path, 'delete', rng)
      // The constraint goes before the table's closing parenthesis.
      db.prepare(
        "UPDATE sqlite_master SET sql = substr(sql, 1, length(rtrim(sql)) - 1) || ', CHECK (' || ? || '))' WHERE name = 'chain'",
      ).run(check)
      db.close()
      const view = plainView(path, NO_FILE)
      if (typeof view === 'string') throw new Error(view)
      try {
        expect(rowsOf(view.path)).toEqual(rowsOf(path))
      } finally {
        view.release()
      }
      expect(left(dir)).toEqual([])
    })

  // The view's table is written from the column names SQLite read: names that close the quote and
  // go on with statements are quoted back into one name, and each statement runs alone.
  const hostileNames = (target: string): string[] => {
    const q = `'${target.replace(/'/g, "''")}'`
    return [
      `x"); ATTACH ${q} AS p; CREATE TABLE p.t(y); --`,
      `y" INTEGER); ATTACH ${q} AS p; CREATE TABLE p.t(z)`,
      `"; VACUUM INTO ${q}; --`,
      `z\`]); ATTACH ${q} AS p; CREATE TABLE p.t(a); /*`,
      `w'"'); ATTACH ${q} AS p; CREATE TABLE p.t(b`,
    ]
  }
  for (const n of hostileNames('T').keys())
    it(`a column named to close its quote (${n}) is one column of the view; nothing else is written`, () => {
      const dir = mkdtempSync(join(root, 'names-'))
      const target = join(dir, 'written.db')
      const path = join(dir, 'chain.db')
      const db = schemaWritable(path, 'delete', rng)
      const name = hostileNames(target)[n]!
      db.exec(`ALTER TABLE chain ADD COLUMN "${name.replace(/"/g, '""')}" TEXT`)
      db.prepare(`UPDATE chain SET "${name.replace(/"/g, '""')}" = 'v' || seq`).run()
      db.close()
      const before = readFileSync(path)
      const view = plainView(path, NO_FILE)
      expect(existsSync(target)).toBe(false)
      expect(readFileSync(path).equals(before)).toBe(true)
      if (typeof view === 'string') throw new Error(view)
      try {
        expect(rowsOf(view.path)).toEqual(rowsOf(path))
        const cols = new Database(view.path, { readonly: true })
        try {
          expect(cols.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('chain')).toContain(name)
        } finally {
          cols.close()
        }
      } finally {
        view.release()
      }
      expect(left(dir)).toEqual([])
    })

  it('a chain table defined otherwise than by CREATE TABLE is refused', () => {
    const dir = mkdtempSync(join(root, 'view-'))
    const path = join(dir, 'chain.db')
    const db = openWriter(path, { pageSize: 4096, journal: 'delete', autoVacuum: 'FULL' })
    db.exec(CHAIN_DDL)
    db.unsafeMode(true)
    db.pragma('writable_schema = ON')
    db.prepare("UPDATE sqlite_master SET sql = 'create temp table chain(x)' WHERE name = 'chain'").run()
    db.close()
    const view = plainView(path, NO_FILE)
    expect(typeof view).toBe('string')
    expect(left(dir)).toEqual([])
  })
})
