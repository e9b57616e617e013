// The precomputed layouts must be what SQLite says, and every fixture's stored statement (the
// independent writer's) must be one of them, so fixtures are read without loading SQLite.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Unsupported } from '../../../../src/main/chain/direct/format'
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
    })
    // SQLite's quirk: a column's own PRIMARY KEY DESC is no rowid alias, nor is INT.
    for (const notAlias of ['seq INTEGER PRIMARY KEY DESC, b BLOB', 'seq INT PRIMARY KEY, b BLOB'])
      expect(columnLayout(`CREATE TABLE chain (${notAlias})`).seqIsRowid).toBe(false)
    const [sql] = [...KNOWN_LAYOUTS.keys()]
    columnLayout(sql!).names.pop()
    expect(columnLayout(sql!)).toEqual(KNOWN_LAYOUTS.get(sql!))
  })

  it('declines statements it must not replay, and ones SQLite refuses', () => {
    for (const sql of [
      'CREATE TABLE chain AS SELECT 1',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY) WITHOUT ROWID',
      'DROP TABLE chain',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, x DEFAULT 3)',
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, x AS (seq + 1))',
      'CREATE TABLE chain (seq',
    ])
      expect(() => columnLayout(sql)).toThrow(Unsupported)
  })
})
