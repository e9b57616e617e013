// The schema table is evidence too (file format §2.6: sqlite_schema is a table b-tree rooted at page
// 1; its `sql` values overflow like any other). A schema row whose `sql` claims hundreds of
// megabytes over an overflow chain that comes back on itself is loaded whole by SQLite when it reads
// the schema (every connection, before any query). Every command must answer or refuse in one line,
// promptly, on both readers.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Rng, scratchDir } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { cellAt, rewriteLeaf, withValueSize } from '../../testing/cell-recode'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { leavesOf } from '../../testing/looped-cells'

const scratch = scratchDir('schema-value')
afterAll(() => scratch.cleanup())

const BOUND_MS = 6000

function run(args: string[], path: string, env: Record<string, string> = {}) {
  const t = Date.now()
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 90_000,
  })
  return { ...r, ms: Date.now() - t }
}

describe('a schema row whose sql claims hundreds of megabytes over a looping chain', () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = writeChainFolder(join(scratch.dir, 'base'), { ...SMALL, rows: 20, pageSize: 1024 })
    // Tables with long CREATE statements: the schema b-tree grows leaves past page 1, and their
    // `sql` values overflow.
    const db = new Database(base)
    try {
      for (let i = 0; i < 6; i++) db.exec(`CREATE TABLE side${i} (x /* ${'c'.repeat(3000)} */)`)
    } finally {
      db.close()
    }
  })

  const rng = new Rng(4242)
  for (let k = 0; k < 3; k++) {
    const bytes = Math.floor(200_000_000 + rng.next() * 300_000_000)
    it(`schema sql of ${bytes} bytes`, () => {
      const dir = join(scratch.dir, `case-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      const file = readFileSync(base)
      const { pageSize, leaves } = leavesOf(base, 'sqlite_schema')
      let first = 0
      // The k-th overflowing schema cell that can take the longer header (any leaf of the schema).
      const cands = leaves.filter((n) => n > 1).flatMap((leaf) => [0, 1, 2, 3].map((i) => ({ leaf, i })))
      // A claimed size whose local part (file format §1.6) fits beside the leaf's other cells.
      for (let j = 0; first === 0 && j < cands.length * 1100; j++) {
        const { leaf, i: want } = cands[(j + k) % cands.length]!
        const claim = bytes + Math.floor(j / cands.length)
        const copy = Buffer.from(file)
        let i = 0
        let at0 = 0
        const done = rewriteLeaf(copy, pageSize, leaf, (page, at, usable) => {
          const c = cellAt(page, at, usable)
          if (at0 !== 0 || c.overflow === 0 || i++ !== want) return c.bytes
          at0 = c.overflow
          return withValueSize(page, at, usable, 4, claim)
        })
        if (done && at0 !== 0) {
          first = at0
          copy.copy(file)
        }
      }
      expect(first).toBeGreaterThan(0)
      file.writeUInt32BE(first, (first - 1) * pageSize)
      writeFileSync(path, file)
      for (const env of [{}, { BIJOTEL_READER: 'sqlite' }] as Record<string, string>[])
        for (const args of [
          ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
          ['stats'],
          ['inspect', '3'],
        ]) {
          const r = run(args, path, env)
          const said = `${args.join(' ')} ${JSON.stringify(env)}: exit ${r.status} after ${r.ms} ms: ${r.stderr}`
          expect(r.ms, said).toBeLessThan(BOUND_MS)
          expect(r.stderr, said).not.toMatch(/\n\s+at /)
          if (r.status !== 0) expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
        }
    }, 240_000)
  }
})
