// Test kit: hostile overflow chains made from a real file — every overflowing cell of a table has one
// column claim a share of the whole file, and its overflow chain looped onto itself (its first
// overflow page's next-page pointer set to itself; file format, "Cell Payload Overflow Pages").
// Built with the independent cell encoder of ./cell-recode.ts; the leaves are found by SQLite's own
// dbstat on our own generated file, never on evidence.
import Database from 'better-sqlite3'
import { readFileSync, writeFileSync } from 'node:fs'
import { cellAt, rewriteLeaf, withValueSize } from './cell-recode'

/** The leaves of `table` (SQLite's dbstat, on our own generated file). */
export function leavesOf(path: string, table: string): { pageSize: number; leaves: number[] } {
  const db = new Database(path)
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number
    const rows = db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'").all(table) as {
      pageno: number
    }[]
    return { pageSize, leaves: rows.map((r) => r.pageno) }
  } finally {
    db.close()
  }
}

/** Every overflowing cell of `table` with `column` claiming `share` of the file, its chain looped onto itself. */
export function loopEveryCell(path: string, table: string, column: number, share: number): number {
  const { pageSize, leaves } = leavesOf(path, table)
  const file = readFileSync(path)
  const bytes = Math.floor(file.length * share)
  let looped = 0
  for (const leaf of leaves.filter((n) => n > 1)) {
    const firsts: number[] = []
    const ok = rewriteLeaf(file, pageSize, leaf, (page, at, usable) => {
      const c = cellAt(page, at, usable)
      const r = c.overflow === 0 ? null : withValueSize(page, at, usable, column, bytes)
      if (r === null) return c.bytes
      firsts.push(c.overflow)
      return r
    })
    if (!ok) continue
    for (const f of firsts) file.writeUInt32BE(f, (f - 1) * pageSize)
    looped += firsts.length
  }
  writeFileSync(path, file)
  return looped
}

/**
 * `base`'s bytes with one overflowing cell of `table` (the k-th candidate, on any leaf but page 1)
 * claiming `bytes` in column `column` — or a little more: a size whose local part (file format
 * §1.6) fits beside the leaf's other cells — and its overflow chain made to come back on itself.
 */
export function loopOneValue(base: string, table: string, column: number, k: number, bytes: number): Buffer {
  const file = readFileSync(base)
  const { pageSize, leaves } = leavesOf(base, table)
  let first = 0
  const cands = leaves.filter((n) => n > 1).flatMap((leaf) => [0, 1, 2, 3].map((i) => ({ leaf, i })))
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
      return withValueSize(page, at, usable, column, claim)
    })
    if (done && at0 !== 0) {
      first = at0
      copy.copy(file)
    }
  }
  if (first === 0) throw new Error(`no overflowing cell of ${table} takes a claim of ${bytes} bytes`)
  file.writeUInt32BE(first, (first - 1) * pageSize)
  return file
}
