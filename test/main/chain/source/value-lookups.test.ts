// Lookups on the copy path read values too: the row before a ranged pass (its hmac_hash), a single
// row by seq, the row before it, the timestamps a time-bounded range compares. A value claiming more bytes than the database over an overflow
// chain that comes back on itself (file format §1.6: every overflow page belongs to one cell) is
// loaded whole by SQLite, as given, unless it is sized before it is read (./value-budget.ts). The
// generator raises one column of one row near the range's start to hundreds of megabytes, loops its
// chain, and holds every command that looks that row up to a prompt answer or a one-line refusal.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Rng } from '../../reliability/chainkit'
import { ensureBuilt, expectPromptAnswers } from '../../testing/cli'
import { cellAt, rewriteLeaf, withValueSize } from '../../testing/cell-recode'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-value-lookups-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const BOUND_MS = 6000
/**
 * trace_id, span_name, canonical_body, canonical_hash, hmac_hash (the writer's column order); the
 * predecessor lookup reads hmac_hash (9), so it is drawn more often.
 */
const COLUMNS = [9, 2, 9, 6, 9, 7, 1, 1]

describe('a huge looped value in a row a lookup reads', () => {
  const base = join(root, 'base')
  beforeAll(() => {
    ensureBuilt()
    writeChainFolder(base, { ...SMALL, rows: 30, pageSize: 1024, bodyBytes: 2500 })
  })
  const rng = new Rng(88088)
  for (let k = 0; k < COLUMNS.length; k++) {
    const column = COLUMNS[k]!
    const bytes = Math.floor(200_000_000 + rng.next() * 300_000_000)
    it(`column ${column} of the row before the range, ${bytes} bytes: every lookup answers or refuses promptly`, () => {
      const dir = join(root, `case-${k}`)
      cpSync(base, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const file = readFileSync(path)
      const pages = basePages(path)
      const ps = pages.pageSize
      const target = 10 + k
      let first = 0
      for (const leaf of pages.leaf.filter((n) => n > 1)) {
        const done = rewriteLeaf(file, ps, leaf, (page, cell, usable) => {
          const c = cellAt(page, cell, usable)
          readVarint(page, cell + readVarint(page, cell))
          if (first !== 0 || c.overflow === 0 || varint.value !== target) return c.bytes
          first = c.overflow
          return withValueSize(page, cell, usable, column, bytes)
        })
        if (done && first !== 0) break
      }
      expect(first).toBeGreaterThan(0)
      file.writeUInt32BE(first, (first - 1) * ps)
      writeFileSync(path, file)
      const commands: string[][] = [
        ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--range', `${target + 1}:`],
        ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--range', `${target + 1}:${target + 1}`],
        ['inspect', String(target + 1), '--secret-hex', KEY_HEX],
        ['inspect', String(target)],
        ['list', '--limit', '3'],
        ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--since', '2025-01-01'],
        ['verify', '--secret-hex', KEY_HEX, '--no-recover', '--until', '2030-01-01', '--last', '3'],
      ]
      expectPromptAnswers(path, commands, BOUND_MS)
    }, 240_000)
  }
})
