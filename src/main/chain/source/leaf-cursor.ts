// The direct reader's cursor (RowSource.cursor): the rows of a range a leaf at a time, leaves in the
// order the table b-tree's child pointers list them (SQLite file format §1.6) or in reverse, each
// leaf's cells in cell-pointer order or in reverse. Pauses fall between leaves: a leaf is one page,
// so a slice never holds more than one page's rows past its time. The whole stream is one pass of the
// cell reader (CellReader.startPass): its overflow bound holds over every leaf it reads, not per leaf.
import { OverflowBudget, type CellReader } from '../sqlite/cell'
import type { RowScanner } from '../direct/scan'
import type { Place, ResolvedRange, RowCursor } from './row-source'

export function leafCursor(
  scanner: RowScanner,
  place: Place,
  r: ResolvedRange,
  descending: boolean,
): RowCursor {
  // A safe integer compares with a BigInt bound exactly through Number(bound).
  const lo = Number(r.fromSeq)
  const hi = Number(r.toSeq)
  let next = descending ? place.to - 1 : place.from
  let done = place.from >= place.to
  const budget = new OverflowBudget()
  return {
    read(row, pause) {
      while (!done) {
        const leaf = next
        next += descending ? -1 : 1
        done = descending ? next < place.from : next >= place.to
        let stop = false
        const visit = (c: CellReader): boolean => {
          const big = c.rowidBig
          if (big === null ? c.rowid < lo || c.rowid > hi : big < r.fromSeq || big > r.toSeq) return true
          stop = row(c) === false
          return !stop
        }
        if (descending) scanner.scanBackward(leaf, leaf + 1, visit, budget)
        else scanner.scan(leaf, leaf + 1, visit, budget)
        if (stop) done = true
        if (!done && pause()) return true
      }
      return false
    },
    close() {},
  }
}
