// The precomputed layouts must be what SQLite says, and every fixture's stored statement (the
// independent writer's) must be one of them, so fixtures are read without loading SQLite.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { columnLayout, KNOWN_LAYOUTS, replayedLayout } from '../../../../src/main/chain/direct/layout'
import { FIXTURES, withSqliteCopy } from '../../testing/fixtures'

function storedChainSql(path: string): string | null {
  return withSqliteCopy(path, (db) => {
    const row = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'chain'").get() as
      { sql: string } | undefined
    return row?.sql ?? null
  })
}

describe('column layouts', () => {
  it('has each precomputed layout equal to the one SQLite gives', () => {
    expect(KNOWN_LAYOUTS.size).toBeGreaterThan(0)
    for (const [sql, layout] of KNOWN_LAYOUTS) expect(replayedLayout(sql)).toEqual(layout)
  })

  it("knows the statement of every fixture with a chain table (the independent writer's)", () => {
    const sqls = new Set<string>()
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.db') && !n.startsWith('bad-'))) {
      const sql = storedChainSql(join(FIXTURES, f))
      if (sql !== null) sqls.add(sql)
    }
    expect(sqls.size).toBeGreaterThan(0)
    for (const sql of sqls) expect(KNOWN_LAYOUTS.has(sql)).toBe(true)
  })

  it('asks SQLite for any other statement, and gives out copies', () => {
    const other = 'CREATE TABLE chain (timestamp_ns INTEGER, seq INTEGER PRIMARY KEY, canonical_body BLOB)'
    expect(columnLayout(other)).toEqual({
      names: ['timestamp_ns', 'seq', 'canonical_body'],
      seqIsRowid: true,
      minFields: 0,
    })
    // SQLite's quirk: a column's own PRIMARY KEY DESC is no rowid alias, nor is INT; comments,
    // quoting and case are SQLite's to read, not a pattern's.
    for (const notAlias of [
      'seq INTEGER PRIMARY KEY DESC, b BLOB',
      'seq INT PRIMARY KEY, b BLOB',
      'seq INTEGER PRIMARY/**/KEY DESC, b BLOB',
      'seq INTEGER PRIMARY -- a comment\n KEY DESC, b BLOB',
      '"seq" INTEGER, b BLOB, PRIMARY KEY (seq DESC, b)',
    ])
      expect(columnLayout(`CREATE TABLE chain (${notAlias})`).seqIsRowid).toBe(false)
    for (const alias of [
      'seq INTEGER PRIMARY/**/KEY, b BLOB',
      '"seq" integer primary key asc, b BLOB',
      'seq INTEGER, b BLOB, PRIMARY KEY (seq)',
      'seq INTEGER, b BLOB, PRIMARY KEY (seq DESC)',
    ])
      expect(columnLayout(`CREATE TABLE chain (${alias})`).seqIsRowid).toBe(true)
    // A DEFAULT is read for records shorter than the table: those records are left to SQLite.
    expect(columnLayout('CREATE TABLE chain (seq INTEGER PRIMARY KEY, x DEFAULT 3, y)').minFields).toBe(2)
    const [sql] = [...KNOWN_LAYOUTS.keys()]
    columnLayout(sql!).names.pop()
    expect(columnLayout(sql!)).toEqual(KNOWN_LAYOUTS.get(sql!))
  })

  it('declines statements it must not replay, and ones SQLite refuses', () => {
    for (const sql of [
      'CREATE TABLE chain AS SELECT 1',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY) WITHOUT ROWID',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY) /* x */ WITHOUT/**/ROWID',
      'DROP TABLE chain',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, x AS (seq + 1))',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, x REAL)',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, x FLOAT)',
      'CREATE VIRTUAL TABLE chain USING fts5(a)',
      'CREATE VIEW chain AS SELECT 1',
      'CREATE TEMP TABLE chain (seq INTEGER PRIMARY KEY)',
      'CREATE TABLE other (seq INTEGER PRIMARY KEY)',
      'CREATE TABLE chain (seq',
    ])
      expect(() => columnLayout(sql)).toThrow(Unsupported)
  })
})
