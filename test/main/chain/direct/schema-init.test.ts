// Schema texts that a live connection runs but SQLite refuses when it loads them from the file
// (prepare.c sqlite3InitCallback runs in "init" mode: build.c sqlite3TwoPartName calls a qualified
// name "corrupt database"). The direct reader replayed them on an in-memory connection, read the
// rows and verify said VALID, while SQLite — the writer, every other tool — calls the file's schema
// malformed. Each variant is stored with writable_schema into a generated folder; SQLite's reading
// of a copy is the oracle: where it errors, the direct reader must decline and no verdict may be VALID.
import Database from 'better-sqlite3'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { STORED_SCHEMA } from '../../../../src/main/chain/schema'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { directReading, sqliteReading } from '../../testing/readings'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-schema-init-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

const ref = STORED_SCHEMA['chain']!
const trace = STORED_SCHEMA['idx_chain_trace']!

/** [label, object name, stored SQL]: qualified names in every spelling, on the table and on an index. */
const VARIANTS: [string, string, string][] = [
  ...[
    'main.chain',
    '"main".chain',
    'main."chain"',
    '[main].[chain]',
    'main . chain',
    'temp.chain',
    'x.chain',
  ].map((n): [string, string, string] => [
    `table ${n}`,
    'chain',
    ref.replace('CREATE TABLE chain', `CREATE TABLE ${n}`),
  ]),
  ...['main.idx_chain_trace', '"main"."idx_chain_trace"'].map((n): [string, string, string] => [
    `index ${n}`,
    'idx_chain_trace',
    trace.replace('CREATE INDEX idx_chain_trace', `CREATE INDEX ${n}`),
  ]),
  // Controls: spellings SQLite loads (the direct reader must read them as SQLite does, or decline).
  ['table "chain"', 'chain', ref.replace('CREATE TABLE chain', 'CREATE TABLE "chain"')],
  ['table chain, comment', 'chain', ref.replace('CREATE TABLE chain', 'CREATE TABLE /* main. */ chain')],
]

describe('schema rows SQLite refuses at load', () => {
  for (const [i, [label, name, sql]] of VARIANTS.entries())
    it(`${label}: read as SQLite reads it, or declined; never VALID where SQLite refuses the schema`, async () => {
      expect(sql).not.toBe(name === 'chain' ? ref : trace)
      const dir = join(root, `v${i}`)
      writeChainFolder(dir, { ...SMALL, rows: 30 })
      const path = join(dir, 'chain.db')
      const db = new Database(path)
      try {
        db.unsafeMode(true)
        db.pragma('writable_schema = ON')
        db.prepare('UPDATE sqlite_master SET sql = ? WHERE name = ?').run(sql, name)
      } finally {
        db.close()
      }
      const oracle = sqliteReading(path, root)
      const direct = directReading(path)
      if (direct.kind === 'rows') {
        expect(oracle.kind, `direct read rows, SQLite: ${oracle.kind === 'rows' ? '' : oracle.message}`).toBe(
          'rows',
        )
        expect(isDeepStrictEqual(direct.rows, oracle.kind === 'rows' ? oracle.rows : null)).toBe(true)
      }
      const v = await verifyFile(path, keys, {}).then(
        (r) => r.verdict,
        (e: unknown) => String(e),
      )
      if (oracle.kind !== 'rows') {
        expect(direct.kind).not.toBe('rows')
        expect(
          typeof v === 'string' || !v.valid,
          `verdict: ${typeof v === 'string' ? v : `valid ${v.valid}, ${v.entries} entries`}`,
        ).toBe(true)
      } else if (typeof v !== 'string' && v.valid) expect(v.entries).toBe(oracle.rows.length)
    })
})
