// Iterating the rows of a chain opened for direct reading, leaf by leaf, in seq (rowid) order.
import { CellReader, headerOffset, leafFor, walkLeavesBackward, type LeafList } from './btree'
import { PAGE_LEAF_TABLE, Unsupported } from './format'
import { Pager } from './pager'
import type { DirectChain } from './open'

export type DirectChainLayout = Pick<DirectChain, 'spec' | 'reserved' | 'ncols' | 'seqColumn' | 'columns'> & {
  leaves: { pages: Int32Array; maxKey: BigInt64Array }
}

/** The layout with another leaf list (a plain object: a worker gets it posted, getters and all read). */
export function withLeaves(layout: DirectChainLayout, leaves: LeafList): DirectChainLayout {
  const { spec, reserved, ncols, seqColumn, columns } = layout
  return { spec, reserved, ncols, seqColumn, columns, leaves }
}

/**
 * The layout with only leaves [from, to), numbered from 0: what a worker scanning them needs, to be
 * posted to it without the rest of the leaf list (a million-row chain has half a million leaves).
 */
export function leafSlice(layout: DirectChainLayout, from: number, to: number): DirectChainLayout {
  const { pages, maxKey } = layout.leaves
  return withLeaves(layout, { pages: pages.slice(from, to), maxKey: maxKey.slice(from, to) })
}

export class RowScanner {
  readonly pager: Pager
  readonly cell: CellReader

  constructor(readonly chain: DirectChainLayout) {
    this.pager = new Pager(chain.spec)
    this.cell = new CellReader(this.pager, chain.ncols, chain.reserved)
  }

  /** The record layout the native page facts decode cells with. */
  get pageLayout(): { ncols: number; usable: number } {
    return { ncols: this.chain.ncols, usable: this.chain.spec.pageSize - this.chain.reserved }
  }

  col(name: string): number {
    return this.chain.columns.get(name) ?? -1
  }

  /**
   * Calls `leaf` with each table leaf of leaves [from, to): the page, its header's offset, its cell
   * count and the first cell to read (`firstCell` on the first leaf, else 0); return false to stop.
   */
  scanLeaves(
    from: number,
    to: number,
    leaf: (page: Buffer, header: number, count: number, first: number) => boolean | void,
    firstCell = 0,
  ): void {
    const pages = this.chain.leaves.pages
    for (let l = from; l < to; l++) {
      const n = pages[l]!
      const page = this.pager.page(n)
      const h = headerOffset(n)
      if (page[h] !== PAGE_LEAF_TABLE) throw new Unsupported(`page ${n} is not a table leaf`)
      if (leaf(page, h, page.readUInt16BE(h + 3), l === from ? firstCell : 0) === false) return
    }
  }

  /** Calls `row` for each cell of leaves [from, to) (from `firstCell` of the first); false stops. */
  scan(from: number, to: number, row: (cell: CellReader) => boolean | void, firstCell = 0): void {
    this.scanLeaves(
      from,
      to,
      (page, h, count, first) => {
        for (let i = first; i < count; i++) {
          this.cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
          if (row(this.cell) === false) return false
        }
      },
      firstCell,
    )
  }

  /**
   * The newest leaves, oldest first, that hold the last `rows` rows (all of them in a shorter
   * chain), found from the tree's right edge without listing every leaf; `firstCell` is where those
   * rows begin in the first of them.
   */
  lastLeaves(rows: number, root: number): { leaves: LeafList; firstCell: number } {
    const pages: number[] = []
    const keys: bigint[] = []
    let count = 0
    walkLeavesBackward(this.pager, root, (n, upper) => {
      const page = this.pager.pageBehind(n)
      count += page.readUInt16BE(headerOffset(n) + 3)
      pages.push(n)
      keys.push(upper)
      return count < rows
    })
    return {
      leaves: { pages: Int32Array.from(pages.reverse()), maxKey: BigInt64Array.from(keys.reverse()) },
      firstCell: Math.max(0, count - rows),
    }
  }

  /** Same, newest first. */
  scanBackward(from: number, to: number, row: (cell: CellReader) => boolean | void): void {
    const pages = this.chain.leaves.pages
    for (let l = to - 1; l >= from; l--) if (!this.leafBackward(pages[l]!, row)) return
  }

  private leafBackward(n: number, row: (cell: CellReader) => boolean | void): boolean {
    // The read-behind window: the callback may read pages through page() meanwhile.
    const page = this.pager.pageBehind(n)
    const h = headerOffset(n)
    if (page[h] !== PAGE_LEAF_TABLE) throw new Unsupported(`page ${n} is not a table leaf`)
    const count = page.readUInt16BE(h + 3)
    for (let i = count - 1; i >= 0; i--) {
      this.cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
      if (row(this.cell) === false) return false
    }
    return true
  }

  /** Rows on leaves [from, to) without decoding them. */
  countRows(from: number, to: number): number {
    let n = 0
    this.scanLeaves(from, to, (_page, _h, count) => {
      n += count
    })
    return n
  }

  /** The row with this rowid, passed to `row` while its cell is valid; false when absent. */
  find(rowid: bigint, row: (cell: CellReader) => void): boolean {
    const l = leafFor(this.chain.leaves, rowid)
    let found = false
    if (l >= this.chain.leaves.pages.length) return false
    this.scan(l, l + 1, (c) => {
      const id = c.rowidBig ?? BigInt(c.rowid)
      if (id === rowid) {
        row(c)
        found = true
        return false
      }
      return id < rowid
    })
    return found
  }

  close(): void {
    this.pager.close()
  }
}
