// sqlite_sequence is evidence too (reference §1.1: AUTOINCREMENT keeps the chain's largest seq
// there), and an auto-vacuum file's plain view copies its chain row (../../../../src/main/chain/
// plain-view.ts). A sqlite_sequence row whose name claims hundreds of megabytes over an overflow
// chain that comes back on itself must not be loaded whole: every command answers or refuses in one
// line, promptly, on both readers.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendRows, CHAIN_SCHEMA, GENESIS, Rng, scratchDir } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { cellAt, rewriteLeaf, withValueSize } from '../../testing/cell-recode'
import { KEY, KEY_HEX, rowsOf } from '../../testing/exact-chains'
import { leavesOf } from '../../testing/looped-cells'

const scratch = scratchDir('sequence-value')
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

describe('a sqlite_sequence name claiming hundreds of megabytes over a looping chain, auto-vacuum', () => {
  let base = ''
  beforeAll(() => {
    ensureBuilt()
    base = join(scratch.dir, 'base.db')
    const db = new Database(base)
    try {
      db.pragma('page_size = 1024')
      db.pragma('auto_vacuum = FULL')
      db.exec(CHAIN_SCHEMA)
      appendRows(db, KEY, rowsOf(20, 0), GENESIS)
      // AUTOINCREMENT tables with long names: their sqlite_sequence rows overflow.
      for (let i = 0; i < 4; i++) {
        const name = `t${i}_${'n'.repeat(2000)}`
        db.exec(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY AUTOINCREMENT, x)`)
        db.exec(`INSERT INTO ${name} (x) VALUES (1)`)
      }
    } finally {
      db.close()
    }
  })

  const rng = new Rng(4343)
  for (let k = 0; k < 3; k++) {
    const bytes = Math.floor(200_000_000 + rng.next() * 300_000_000)
    it(`sqlite_sequence name of ${bytes} bytes`, () => {
      const dir = join(scratch.dir, `case-${k}`)
      mkdirSync(dir)
      const path = join(dir, 'chain.db')
      const file = readFileSync(base)
      const { pageSize, leaves } = leavesOf(base, 'sqlite_sequence')
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
          return withValueSize(page, at, usable, 0, claim)
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
