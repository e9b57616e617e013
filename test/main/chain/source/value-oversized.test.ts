// One value claiming more bytes than the whole database (file format §1.6: every overflow page
// belongs to one cell, so a stored value fits in the file): a cell whose serial type, record header
// and payload size agree on a huge TEXT value and whose overflow chain comes back on itself. SQLite
// reads such a row as well formed, following the loop as given, and loads the whole value: a
// 100 KB file had verify, stats, list and integrity each load 400 MB for 16–33 s before the pass's
// ValueBudget could count it. A generator raises a random column of a random overflowing row to a
// random size between a few times the file and SQLITE_MAX_LENGTH's reach, loops the chain onto
// itself or its first page, and verify must refuse the file in one line, promptly (every other
// command too, or answer without reading the value); the untouched chain still verifies there.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Rng } from '../../reliability/chainkit'
import { ensureBuilt, timedRun } from '../../testing/cli'
import { cellAt, rewriteLeaf, withValueSize } from '../../testing/cell-recode'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-value-oversized-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** What one refusal may take (the whole value was loaded: 5–33 s at these sizes). */
const BOUND_MS = 6000

/** trace_id, span_name, canonical_body, canonical_hash, hmac_hash (the writer's column order). */
const COLUMNS = [2, 4, 6, 7, 9]

const COMMANDS: string[][] = [
  ['verify', '--secret-hex', KEY_HEX, '--no-recover'],
  ['stats'],
  ['list', '--limit', '-1'],
  ['integrity'],
]

describe('a value claiming more bytes than the database, over a looping overflow chain', () => {
  const base = join(root, 'base')
  it('the untouched chain verifies through SQLite on the copy', () => {
    ensureBuilt()
    writeChainFolder(base, { ...SMALL, rows: 30, pageSize: 1024, bodyBytes: 2500 })
    const r = timedRun(COMMANDS[0]!, join(base, 'chain.db'), { BIJOTEL_READER: 'sqlite' })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/VALID/)
  }, 60_000)

  const rng = new Rng(5105)
  for (let k = 0; k < 5; k++) {
    const column = COLUMNS[k]!
    const bytes = Math.floor(40_000_000 + rng.next() * 400_000_000)
    const loop = rng.next() < 0.5 ? 'self' : 'to-first'
    it(`column ${column}, ${bytes} bytes, chain looping ${loop}: verify refuses it promptly, the rest answer or refuse promptly`, () => {
      const dir = join(root, `case-${k}`)
      cpSync(base, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const file = readFileSync(path)
      const pages = basePages(path)
      const ps = pages.pageSize
      // The first overflowing cell of a random leaf whose page has room for the longer header.
      const leaves = pages.leaf.filter((n) => n > 1)
      let first = 0
      for (let tries = 0; first === 0 && tries < leaves.length; tries++) {
        const leaf = leaves[(Math.floor(rng.next() * leaves.length) + tries) % leaves.length]!
        let at = 0
        const done = rewriteLeaf(file, ps, leaf, (page, cell, usable) => {
          const c = cellAt(page, cell, usable)
          if (at !== 0 || c.overflow === 0) return c.bytes
          at = c.overflow
          return withValueSize(page, cell, usable, column, bytes)
        })
        if (done && at !== 0) first = at
      }
      expect(first).toBeGreaterThan(0)
      let last = first
      while (loop === 'to-first' && file.readUInt32BE((last - 1) * ps) !== 0)
        last = file.readUInt32BE((last - 1) * ps)
      file.writeUInt32BE(first, (last - 1) * ps)
      writeFileSync(path, file)
      for (const args of COMMANDS) {
        const r = timedRun(args, path)
        const said = `${args[0]}: exit ${r.status} after ${r.ms} ms: ${r.stderr}`
        expect(r.ms, said).toBeLessThan(BOUND_MS)
        // Verify reads every column; a command that never reads this one (stats, list of a hash)
        // answers as SQLite does.
        if (r.status === 0 && args[0] !== 'verify') continue
        // SQLite itself may call the record corrupt first; else the value is refused before it loads.
        expect(r.stderr, said).toMatch(
          new RegExp(
            `claims ${bytes} bytes in a database of \\d+ bytes|database file is corrupt \\(SQLITE_CORRUPT\\)`,
          ),
        )
        expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
        expect([1, 2], said).toContain(r.status)
      }
    }, 240_000)
  }
})
