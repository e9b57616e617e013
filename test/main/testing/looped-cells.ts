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
