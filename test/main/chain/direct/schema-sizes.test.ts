// A schema row claiming more bytes than the whole database (file format §1.6: every overflow page
// belongs to one cell, so sqlite_master's rows fit in the file), over an overflow chain that comes
// back on itself. SQLite reads every schema row whole when it loads the schema, whatever the first
// query: a 430 KB copy had it allocate and read 491 MB for 5 s before the copy path's own bounds
// could run, and the answer was its "malformed database schema". A generator raises the long
// statement of an extra table to a random size between a few times
// the file and half of SQLITE_MAX_LENGTH, loops its chain onto itself or its first page, and every
// command, through either reader, must refuse the file in one line naming the claim (the direct
// reader declines such a row before reading it; the copy path sizes the schema's cells first). A
// schema whose honest long statements overflow several pages still reads.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Rng } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { cellAt, withValueSize } from '../../testing/cell-recode'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-schema-sizes-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const PAGE = 4096
/** file format §1.6 for U = 4096: the least local part of an overflowing cell, and a page's chunk. */
const MIN_LOCAL = Math.floor(((PAGE - 12) * 32) / 255) - 23
const CHUNK = PAGE - 4

const COMMANDS: string[][] = [
  ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
  ['stats'],
  ['list', '--limit', '5'],
  ['integrity'],
]

/** The direct reader first (it declines such a row unread), and SQLite on the copy alone. */
const READERS: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]

function run(args: string[], path: string, env: Record<string, string>) {
  const t = Date.now()
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 90_000,
  })
  return { ...r, ms: Date.now() - t }
}

let base = ''
beforeAll(() => {
  ensureBuilt()
  const dir = join(root, 'base')
  const path = writeChainFolder(dir, { ...SMALL, rows: 20, pageSize: PAGE })
  // An extra table whose statement overflows page 1 (an honest schema row on overflow pages).
  const db = new Database(path)
  db.exec(`CREATE TABLE pad (x /* ${'p'.repeat(6000)} */)`)
  db.close()
  base = dir
})

describe('an honest schema with long statements', () => {
  it('still verifies through both readers', () => {
    const dir = join(root, 'honest')
    cpSync(base, dir, { recursive: true })
    const path = join(dir, 'chain.db')
    const db = new Database(path)
    db.exec(`CREATE TABLE pad2 (y /* ${'q'.repeat(70_000)} */)`)
    db.close()
    for (const env of READERS) {
      const r = run(COMMANDS[0]!, path, env)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/VALID/)
    }
  }, 60_000)
})

describe('a schema row claiming more than the database, over a looping overflow chain', () => {
  const rng = new Rng(60617)
  for (let k = 0; k < 5; k++) {
    const column = 4 // the statement, the field SQLite parses
    // Past the file by far, below SQLite's limit; the local part stays small (it must fit page 1).
    const chunks = Math.floor(1000 + rng.next() * 120_000)
    const bytes = MIN_LOCAL + CHUNK * chunks + Math.floor(rng.next() * 100)
    const loop = rng.next() < 0.5 ? 'self' : 'to-first'
    it(`field ${column} of the pad row claims ${bytes} bytes, chain looping ${loop}: refused in one line, promptly`, () => {
      const dir = join(root, `case-${k}`)
      cpSync(base, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const file = readFileSync(path)
      const page = file.subarray(0, PAGE)
      const count = page.readUInt16BE(103)
      let first = 0
      for (let i = 0; i < count && first === 0; i++) {
        const at = page.readUInt16BE(108 + 2 * i)
        const c = cellAt(page, at, PAGE)
        if (c.overflow === 0) continue
        const cell = withValueSize(page, at, PAGE, column, bytes)!
        // The new cell below the content area (the old one left as unused bytes), its pointer moved.
        const content = page.readUInt16BE(105) - cell.length
        expect(content).toBeGreaterThan(108 + 2 * count)
        cell.copy(page, content)
        page.writeUInt16BE(content, 105)
        page.writeUInt16BE(content, 108 + 2 * i)
        first = c.overflow
      }
      expect(first).toBeGreaterThan(0)
      let last = first
      while (loop === 'to-first' && file.readUInt32BE((last - 1) * PAGE) !== 0)
        last = file.readUInt32BE((last - 1) * PAGE)
      file.writeUInt32BE(first, (last - 1) * PAGE)
      writeFileSync(path, file)
      for (const args of COMMANDS)
        for (const env of READERS) {
          const r = run(args, path, env)
          const said = `${args[0]} ${JSON.stringify(env)}: exit ${r.status} after ${r.ms} ms: ${r.stderr}`
          expect(r.stderr, said).toMatch(/the schema of .* claims \d+ bytes in a database of \d+ bytes/)
          expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
          expect([1, 2], said).toContain(r.status)
          expect(r.ms, said).toBeLessThan(4000)
        }
    }, 240_000)
  }
})
