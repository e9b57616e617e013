// Every row's rowid in scan order, and where each leaf's rows start: the answer to lookups the
// divider keys do not give (a missing row, a key that names the wrong leaf, the row before a seq).
import { firstAtLeast } from '../../base/sorted'
import { Unsupported } from '../sqlite/decline'
import { readVarint, varint } from '../sqlite/varint'
import type { RowScanner } from './scan'

export const DISORDER = 'rowids do not ascend in scan order'

/** The rowid of the table leaf cell at `at`: the varint after the payload size (file format §1.6). */
export function rowidAt(page: Buffer, at: number): bigint {
  const n = readVarint(page, at)
  readVarint(page, at + n)
  return varint.big ?? BigInt(varint.value)
}

export class RowidTable {
  private constructor(
    private readonly rowids: BigInt64Array,
    private readonly leafStart: Int32Array,
  ) {}

  /**
   * One pass over every leaf's cell rowids (the varints after each cell's payload size, file format
   * §1.6), no payload read. Rowids must ascend in scan order: a tree where they do not is declined,
   * left to SQLite rather than read by a rule of our own.
   */
  static read(scanner: RowScanner, leafCount: number, rows: number): RowidTable {
    const rowids = new BigInt64Array(rows)
    const leafStart = new Int32Array(leafCount + 1)
    let n = 0
    let leaf = 0
    scanner.scanLeaves(0, leafCount, (page, h, count) => {
      leafStart[leaf++] = n
      for (let k = 0; k < count; k++) {
        const id = rowidAt(page, page.readUInt16BE(h + 8 + 2 * k))
        if (n > 0 && id <= rowids[n - 1]!) throw new Unsupported(DISORDER)
        rowids[n++] = id
      }
    })
    leafStart[leaf] = n
    return new RowidTable(rowids, leafStart)
  }

  /** The position of the first row whose rowid is `seq` or more (the row count when none is). */
  firstAtLeast(seq: bigint): number {
    return firstAtLeast(this.rowids, seq)
  }

  /** The rowid at position `at`, or null past the end. */
  rowidAt(at: number): bigint | null {
    return at < this.rowids.length ? this.rowids[at]! : null
  }

  /** Leaf and cell of the row at position `at` in scan order. */
  position(at: number): { leaf: number; cell: number } {
    const leafStart = this.leafStart
    // The last leaf whose first row is at or before position `at` (empty leaves share a start).
    let a = 0
    let b = leafStart.length - 1
    while (a < b) {
      const mid = (a + b) >>> 1
      if (leafStart[mid + 1]! <= at) a = mid + 1
      else b = mid
    }
    return { leaf: a, cell: at - leafStart[a]! }
  }
}

/**
 * Leaf and cell of the scan's first row whose rowid is `seq`, the leaves read from the first one
 * until it (their cell rowids alone, file format §1.6, no payload): every row before it was read, so
 * it is the first with that seq whatever the rest of the tree holds, and a miss is a miss over every
 * row. What `find` asks costs the leaves up to the row, not the file (the RowidTable reads them
 * all, for the lookups that need the last row below a seq).
 */
export function firstInScan(
  scanner: RowScanner,
  leafCount: number,
  seq: bigint,
): { leaf: number; cell: number } | null {
  let leaf = 0
  let hit: { leaf: number; cell: number } | null = null
  scanner.scanLeaves(0, leafCount, (page, h, count) => {
    for (let k = 0; k < count; k++)
      if (rowidAt(page, page.readUInt16BE(h + 8 + 2 * k)) === seq) {
        hit = { leaf, cell: k }
        return false
      }
    leaf++
    return true
  })
  return hit
}
