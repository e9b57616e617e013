// `find` (inspect N without a key, the entry detail) reads the leaves from the first one until the
// scan's first row with that seq, not every leaf of the file: every row before it was read, so it is
// the first whatever the rest holds. What the rest holds then never reaches the answer — rowids out
// of order or repeated in a later leaf (which the whole-file rowid table declines), a later leaf
// that is not a table leaf at all — and the row is SQLite's scan's first with that seq. The old
// reader read every leaf's rowids for one row (5.3–5.6 s at 1M rows) and declined such a file.
import { copyFileSync, openSync, readSync, writeSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { directSource } from '../../testing/sources'
import { withSqliteCopy } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'
import { scratchDir } from '../../reliability/chainkit'
import { chainRoot, PAGE, smallPageChain } from './divider-kit'
import { leafCells, setRowid, type LeafCell } from './rowid-kit'

const ROWS = 400
const scratch = scratchDir('find-early')
afterAll(() => scratch.cleanup())

/** SQLite's scan's first row with seq `s` (its hmac_hash), or null. */
function scanFirst(path: string, s: number): string | null {
  return withSqliteCopy(path, (db: Database.Database) => {
    const r = db.prepare('SELECT hmac_hash FROM chain NOT INDEXED WHERE +seq = ? LIMIT 1').pluck().get(s)
    return (r as string | undefined) ?? null
  })
}

/** The direct reader's row for seq `s` (its hmac_hash), or null. */
function directFirst(path: string, s: number): string | null {
  const src = directSource(path)
  try {
    let mac: string | null = null
    const hit = src.find(BigInt(s), (r) => {
      mac = r.text(src.col('hmac_hash'))
    })
    return hit ? mac : null
  } finally {
    src.close()
  }
}

describe('find reads the leaves up to the row, and answers as SQLite’s scan', () => {
  let base = ''
  let cells: LeafCell[] = []
  beforeAll(() => {
    base = smallPageChain(scratch.dir, 'base.db', ROWS)
    cells = leafCells(base, chainRoot(base))
    expect(cells.length).toBe(ROWS)
  })

  const rnd = mulberry32(0xf1e5)
  for (let k = 0; k < 8; k++)
    it(`case ${k}: a later leaf out of order${k % 2 ? ' or not a table leaf' : ''}; a row before it is found`, () => {
      const path = join(scratch.dir, `m-${k}.db`)
      copyFileSync(base, path)
      const leaves = [...new Set(cells.map((c) => c.leaf))]
      // The spoilt leaf: in the second half of the scan.
      const bad = leaves[Math.floor(leaves.length / 2) + Math.floor(rnd() * (leaves.length / 2 - 1))]!
      const inBad = cells.map((c, i) => ({ c, i })).filter((x) => x.c.leaf === bad)
      if (k % 2 === 0) {
        // Its first cell takes the rowid of a row further back (rowids stay two-byte varints).
        const back = cells.filter((c) => c.rowid >= 128 && c.leaf !== bad && c.rowid < inBad[0]!.c.rowid)
        setRowid(path, chainRoot(path), inBad[0]!.i, back[Math.floor(rnd() * back.length)]!.rowid)
      } else {
        const fd = openSync(path, 'r+')
        try {
          const b = Buffer.alloc(1)
          readSync(fd, b, 0, 1, (bad - 1) * PAGE)
          writeSync(fd, Buffer.from([0x0a]), 0, 1, (bad - 1) * PAGE)
        } finally {
          closeSync(fd)
        }
      }
      // Seqs in leaves before the spoilt one: the scan's first row with each, on both.
      const before = cells.filter((c) => c.leaf !== bad && cells.indexOf(c) < inBad[0]!.i)
      for (let j = 0; j < 5; j++) {
        const s = before[Math.floor(rnd() * before.length)]!.rowid
        const want = scanFirst(path, s)
        expect(want, `seq ${s}`).not.toBeNull()
        expect(directFirst(path, s), `seq ${s}`).toBe(want)
      }
    })

  it('a seq no row holds is a miss over every leaf, as before', () => {
    expect(directFirst(base, ROWS + 5)).toBeNull()
    expect(scanFirst(base, ROWS + 5)).toBeNull()
    expect(directFirst(base, 1)).toBe(scanFirst(base, 1))
    expect(directFirst(base, ROWS)).toBe(scanFirst(base, ROWS))
  })
})
