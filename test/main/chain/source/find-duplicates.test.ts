// A single row found by seq (`inspect N`, the app's entry detail, replay's and verify's single-row
// checks) must be the row a scan reads first with that seq, as SQLite's own scan
// (`SELECT … FROM chain NOT INDEXED WHERE +seq = ? LIMIT 1`) answers — and the row before it the
// row the scan reads just before that one. A table b-tree whose leaves hold one rowid twice, or
// rowids out of order (file format §1.6: nothing but the writer keeps them ascending; SQLite's scan
// reads them as stored), makes a seek (`WHERE seq = ?`, the divider keys, a binary search within
// a leaf) land on another row than the scan's first. The generator writes such duplicates and
// disorders at many places of a chain of small pages and holds both readers to SQLite's scan.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { findRow, checkInspectedRow } from '../../../../src/main/browse/inspect'
import { READERS, withSource } from '../../testing/sources'
import type { ReaderKind } from '../../../../src/main/chain/source/row-source'
import { checkRow } from '../../../../src/main/verify/row'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { scratchDir } from '../../reliability/chainkit'
import { withSqliteCopy } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'
import { chainRoot, SECRET, smallPageChain } from './divider-kit'
import { leafCells, setRowid } from './rowid-kit'

const ROWS = 400

const scratch = scratchDir('find-duplicates')
afterAll(() => scratch.cleanup())

interface Scanned {
  /** rowid, hmac_hash and prev_hash of every row in SQLite's scan order. */
  rows: { seq: bigint; mac: string; prev: string }[]
}

function sqliteScan(path: string): Scanned {
  return withSqliteCopy(path, (db: Database.Database) => {
    const rows = db
      .prepare('SELECT seq, hmac_hash AS mac, prev_hash AS prev FROM chain NOT INDEXED')
      .safeIntegers(true)
      .all() as { seq: bigint; mac: string; prev: string }[]
    return { rows }
  })
}

/** A rowid-rewrite shape: which cell gets which other cell's rowid (positions in scan order). */
type Shape = (cells: { leaf: number; rowid: number }[], rnd: () => number) => [number, number] | null

const pick = (n: number, rnd: () => number): number => Math.floor(rnd() * n)

/** A cell that starts a leaf (not the first leaf). */
function boundary(c: { leaf: number }[], rnd: () => number): number {
  const starts = c.flatMap((x, i) => (i > 0 && c[i - 1]!.leaf !== x.leaf ? [i] : []))
  return starts[pick(starts.length, rnd)]!
}

const SHAPES: Record<string, Shape> = {
  // The next cell of the same leaf repeats this one's rowid: the original is first.
  'repeat forward in a leaf': (c, rnd) => {
    const i = 1 + pick(c.length - 1, rnd)
    return c[i]!.leaf === c[i - 1]!.leaf ? [i, i - 1] : null
  },
  // A cell takes the next cell's rowid: the forged row is first.
  'repeat backward in a leaf': (c, rnd) => {
    const i = pick(c.length - 1, rnd)
    return c[i]!.leaf === c[i + 1]!.leaf ? [i, i + 1] : null
  },
  // A leaf's last cell takes the next leaf's first rowid (the divider key still names the next leaf).
  'last of a leaf takes the next first': (c, rnd) => {
    const i = boundary(c, rnd)
    return [i - 1, i]
  },
  'first of a leaf takes the previous last': (c, rnd) => {
    const i = boundary(c, rnd)
    return [i, i - 1]
  },
  // A cell takes a rowid from far away, before or after it.
  'a rowid from far later': (c, rnd) => {
    const i = pick(c.length - 40, rnd)
    return [i, i + 20 + pick(c.length - i - 20, rnd)]
  },
  'a rowid from far earlier': (c, rnd) => {
    const i = 40 + pick(c.length - 40, rnd)
    return [i, pick(i - 20, rnd)]
  },
}

/** inspect's row and its link, and the single-row check's, are the scan's (or the reader declines). */
async function holdsToScan(path: string, reader: ReaderKind, scan: Scanned['rows'], s: number, what: string) {
  const seq = BigInt(s)
  const at = scan.findIndex((r) => r.seq === seq)
  try {
    await withSource(path, reader, async (src) => {
      const row = await findRow(src, String(s))
      if (at < 0) return expect(row, what).toBeNull()
      expect(row?.hmac_hash, what).toBe(scan[at]!.mac)
      const link = (await checkInspectedRow(src, row!, [])).link
      const one = checkRow(src, [], s)
      // The link: to the row the scan reads just before the first row with this seq.
      if (at === 0) return expect(link.kind, what).not.toBe('predecessor')
      const ok = scan[at - 1]!.mac === scan[at]!.prev
      expect(link.kind === 'predecessor' && link.ok, what).toBe(ok)
      expect(one.link_ok, what).toBe(ok)
    })
  } catch (e) {
    // The direct reader may decline a tree whose rowids do not ascend; SQLite's copy then answers.
    if (!(reader === 'direct' && e instanceof Unsupported)) throw e
  }
}

/** The CLI, direct and through SQLite: the row inspect shows is the scan's first, its link the scan's. */
function cliAgrees(path: string, scan: Scanned['rows'], seqs: number[], name: string): void {
  for (const env of [{}, { BIJOTEL_READER: 'sqlite' }] as Record<string, string>[])
    for (const s of seqs) {
      const at = scan.findIndex((r) => r.seq === BigInt(s))
      const r = bijotel(['inspect', '--db', path, String(s), '--secret-hex', SECRET], env)
      const what = `${name} seq ${s} ${JSON.stringify(env)}: ${r.stderr}`
      if (at < 0) {
        expect(r.code, what).toBe(1)
        continue
      }
      expect(r.stdout, what).toContain(`hmac_hash:           ${scan[at]!.mac}`)
      if (at > 0)
        expect(r.stdout, what).toContain(
          scan[at - 1]!.mac === scan[at]!.prev ? 'link:       OK' : 'link:       BROKEN',
        )
    }
}

describe('a row found by seq is the scan’s first row with that seq', () => {
  let base = ''
  let cells: { leaf: number; rowid: number }[] = []
  beforeAll(() => {
    ensureBuilt()
    base = smallPageChain(scratch.dir, 'base.db', ROWS)
    cells = leafCells(base, chainRoot(base))
    expect(cells.length).toBe(ROWS)
    expect(new Set(cells.map((c) => c.leaf)).size).toBeGreaterThan(10)
  })

  const CASES = 8
  for (const [name, shape] of Object.entries(SHAPES))
    it.each(READERS)(`${name}, ${CASES} places, through %s`, async (reader) => {
      const rnd = mulberry32(name.length * 7919 + (reader === 'direct' ? 1 : 2))
      let checked = 0
      for (let k = 0; k < CASES * 4 && checked < CASES; k++) {
        const move = shape(cells, rnd)
        // Two-byte rowids only, so the rewrite keeps the cell's size (rowids 128..16383).
        if (move === null || cells[move[0]]!.rowid < 128 || cells[move[1]]!.rowid < 128) continue
        const path = join(scratch.dir, `m-${reader}-${k}.db`)
        copyFileSync(base, path)
        setRowid(path, chainRoot(path), move[0], cells[move[1]]!.rowid)
        const scan = sqliteScan(path).rows
        const seqs = new Set([cells[move[0]]!.rowid, cells[move[1]]!.rowid])
        for (const s of [...seqs]) seqs.add(s + 1)
        // A fresh source for each seq: what one lookup reads first must not decide the next.
        for (const s of seqs)
          await holdsToScan(path, reader, scan, s, `${name} ${JSON.stringify(move)} seq ${s}`)
        checked++
        if (checked === 1 && reader === 'direct') cliAgrees(path, scan, [...seqs], name)
      }
      expect(checked).toBe(CASES)
    })
})
