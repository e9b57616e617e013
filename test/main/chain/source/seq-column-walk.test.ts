// The columns the copy path filters or orders on, stored after values under the database's size
// each overflowing onto a chain that comes back on itself: a seq stored as an ordinary column (a
// table rebuilt by hand, not INTEGER PRIMARY KEY) last in the record, or timestamp_ns last. Every
// query that orders or filters on them (a sort for `list`, a range for `verify --range`, the
// integrity window, `verify --since`) reads them from every row it visits, walking past those
// values page by page in rows it never returns, so no ValueBudget of read values counted them:
// `list --limit 3` on a 3 MB file walked 1 GB for 20 s and printed its rows, exit 0. A generator
// loops every overflowing cell of a column before them to a random share of the file; every
// command must refuse the file in one line, promptly. The same tables unlooped still verify.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { Rng } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { loopEveryCell } from '../../testing/looped-cells'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { WRITER_COLUMNS } from '../../testing/writer-columns'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-seq-walk-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const BOUND_MS = 8000

const WRITER = WRITER_COLUMNS

/**
 * Two rebuilt layouts: seq a plain INTEGER column stored last (read by every sort and range), and
 * seq the rowid with timestamp_ns stored last (read by every row a --since range visits). The
 * looped columns lie before the column filtered on in both.
 */
const LAYOUTS = {
  'seq-last': [...WRITER, ['seq', 'INTEGER']],
  'timestamp-last': [['seq', 'INTEGER PRIMARY KEY'], ...WRITER.slice(1), WRITER[0]!],
} as const satisfies Record<string, readonly (readonly [string, string])[]>

const COMMANDS = (dir: string): string[][] => [
  ['list', '--limit', '3'],
  ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--since', '2025-01-01'],
  ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--range', '1:5'],
  ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
  ['integrity', '--window', '50'],
  ['export', '-o', join(dir, 'out.jsonl'), '--secret-hex', KEY_HEX],
]

function run(args: string[], path: string) {
  const t = Date.now()
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], { encoding: 'utf8', timeout: 120_000 })
  return { ...r, ms: Date.now() - t }
}

for (const [layout, columns] of Object.entries(LAYOUTS))
  describe(`${layout}: the column filtered on stored after values looping over their own overflow chains`, () => {
    const base = join(root, layout)
    // Record positions (the rowid alias stores no value, but keeps its place as a NULL).
    const at = (name: string): number => columns.findIndex(([n]) => n === name)
    it('the rebuilt table, unlooped, still verifies', () => {
      ensureBuilt()
      const writer = writeChainFolder(join(root, `writer-${layout}`), {
        ...SMALL,
        rows: 2500,
        pageSize: 512,
        bodyBytes: 700,
      })
      mkdirSync(base)
      const db = new Database(join(base, 'chain.db'))
      db.pragma('page_size = 512')
      db.exec(`CREATE TABLE chain (${columns.map(([n, t]) => `${n} ${t}`).join(', ')})`)
      const names = columns.map(([n]) => n).join(', ')
      db.exec(
        `ATTACH '${writer}' AS w; INSERT INTO chain (${names}) SELECT ${names} FROM w.chain ORDER BY seq`,
      )
      db.exec('DETACH w')
      db.close()
      const r = run(COMMANDS(base)[3]!, join(base, 'chain.db'))
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/VALID \(2500 entries\)/)
    }, 120_000)

    const rng = new Rng(60627)
    for (const name of ['trace_id', 'span_id', 'canonical_body']) {
      const share = 0.5 + rng.next() * 0.45
      it(`every overflowing cell's ${name} claims ${share.toFixed(2)} of the file: refused`, () => {
        const dir = join(root, `${layout}-${name}`)
        cpSync(base, dir, { recursive: true })
        const path = join(dir, 'chain.db')
        expect(loopEveryCell(path, 'chain', at(name), share)).toBeGreaterThan(100)
        for (const args of COMMANDS(dir)) {
          const r = run(args, path)
          const said = `${args.join(' ')}: exit ${r.status} after ${r.ms} ms: ${r.stdout.slice(0, 200)} ${r.stderr}`
          expect(r.stderr, said).toMatch(/share overflow pages/)
          expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
          expect([1, 2], said).toContain(r.status)
          expect(r.ms, said).toBeLessThan(BOUND_MS)
        }
      }, 300_000)
    }
  })
