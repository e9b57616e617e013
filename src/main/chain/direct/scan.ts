// Iterating the rows of a chain opened for direct reading, leaf by leaf, in seq (rowid) order.
import { CellReader, type OverflowBudget } from '../sqlite/cell'
import { lockPage } from '../sqlite/header'
import { headerOffset, leafCells } from '../sqlite/page'
import { walkLeavesBackward, type LeafList } from './btree'
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

/** A leaf offered whole before its cells are decoded one by one: the cells it dealt with. */
export type LeafFirst = (page: Buffer, header: number, from: number, layout: Int32Array) => number

/**
 * Leaves `pages[at]`, `pages[at + 1]`, … offered whole while they lie in one read window (`window`:
 * the pages from geometry[4], geometry[5] of them): column count, usable size, fewest fields, page
 * size, the window's first page, its page count, the lock-byte page. It sets out[0] to the leaves it
 * dealt with whole, out[1] to the cells it dealt with of the leaf after them, and out[2] to 1 when it
 * stopped because that leaf lies outside the window.
 */
export type LeavesFirst = (
  window: Buffer,
  pages: Int32Array,
  at: number,
  geometry: Int32Array,
  out: Int32Array,
) => void

export class RowScanner {
  readonly pager: Pager
  readonly cell: CellReader

  constructor(readonly chain: DirectChainLayout) {
    this.pager = new Pager(chain.spec)
    this.cell = new CellReader(this.pager, chain.ncols, chain.reserved, chain.spec.minFields)
  }

  /** The record layout the native page facts decode cells with. */
  get pageLayout(): { ncols: number; usable: number; minFields: number } {
    const { spec, ncols, reserved } = this.chain
    return { ncols, usable: spec.pageSize - reserved, minFields: spec.minFields }
  }

  col(name: string): number {
    return this.chain.columns.get(name) ?? -1
  }

  /**
   * Calls `leaf` with each table leaf of leaves [from, to): the page, its header's offset, its cell
   * count and the first cell to read (0); return false to stop.
   */
  scanLeaves(
    from: number,
    to: number,
    leaf: (page: Buffer, header: number, count: number, first: number) => boolean | void,
  ): void {
    const pages = this.chain.leaves.pages
    for (let l = from; l < to; l++) {
      const n = pages[l]!
      const page = this.pager.page(n)
      const count = leafCells(page, n, this.pager.pageSize, this.chain.spec.root)
      if (leaf(page, headerOffset(n), count, 0) === false) return
    }
  }

  /**
   * Calls `row` for each cell of leaves [from, to); false stops. `budget`: the pass this scan is a
   * step of (CellReader.startPass), else a pass of its own.
   */
  scan(from: number, to: number, row: (cell: CellReader) => boolean | void, budget?: OverflowBudget): void {
    this.cell.startPass(budget)
    this.scanLeaves(from, to, (page, h, count) => {
      for (let i = 0; i < count; i++) {
        this.cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
        if (row(this.cell) === false) return false
      }
    })
  }

  /**
   * `scan`, offering each leaf first to `leaf(page, header, from, layout)`, which returns how many of
   * its cells from `from` on it has dealt with where they lie (verify's native prover proves runs of
   * clean rows so, no cell decoded here); the next cell is decoded and goes to `row`, and the leaf is
   * offered again from the cell after it. `layout`: column count, usable page size, fewest fields.
   * `leaves`, where given, is offered the read window first (LeavesFirst): the leaves it deals with
   * whole are skipped, and the leaf it stopped in goes on from the cells it dealt with.
   */
  scanLeafFirst(
    from: number,
    to: number,
    leaf: LeafFirst,
    row: (cell: CellReader) => boolean | void,
    leaves?: LeavesFirst,
  ): void {
    const { ncols, usable, minFields } = this.pageLayout
    const layout = Int32Array.of(ncols, usable, minFields)
    const size = this.pager.pageSize
    const geometry = Int32Array.of(ncols, usable, minFields, size, 0, 0, lockPage(size))
    const out = new Int32Array(3)
    const pages = this.chain.leaves.pages
    const listed = leaves === undefined ? pages : pages.subarray(0, to)
    const root = this.chain.spec.root
    this.cell.startPass()
    for (let l = from; l < to; l++) {
      let n = pages[l]!
      let page = this.pager.page(n)
      let dealt = 0
      const w = leaves === undefined ? null : this.pager.windowOf(n)
      if (w !== null) {
        geometry[4] = w.first
        geometry[5] = w.count
        out.fill(0)
        leaves!(w.buf, listed, l, geometry, out)
        if (out[0]! > 0) {
          l += out[0]!
          if (l >= to) return
          // The leaf it stopped at lies in the next window: offered again from there.
          if (out[2] === 1) {
            l--
            continue
          }
          n = pages[l]!
          page = this.pager.page(n)
        }
        dealt = out[1]!
      }
      const count = leafCells(page, n, size, root)
      const h = headerOffset(n)
      for (
        let i = dealt > 0 ? dealt : leaf(page, h, 0, layout);
        i < count;
        i += 1 + leaf(page, h, i + 1, layout)
      ) {
        this.cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
        if (row(this.cell) === false) return
      }
    }
  }

  /**
   * The newest leaves that hold the last `rows` rows (all of them in a shorter chain), found from
   * the tree's right edge without listing every leaf, and passed to `leaf` newest first with the
   * first cell of theirs among those rows (0 but for the oldest). Returns them oldest first, with
   * the key bounds a full leaf list has for them. `leaf` may read other pages through `page()`.
   */
  scanLastLeaves(
    rows: number,
    root: number,
    leaf: (page: Buffer, header: number, count: number, first: number) => void,
  ): LeafList {
    const pages: number[] = []
    const keys: bigint[] = []
    let left = rows
    walkLeavesBackward(this.pager, root, (n, upper) => {
      const page = this.pager.pageBehind(n)
      const h = headerOffset(n)
      const count = leafCells(page, n, this.pager.pageSize, root)
      const first = Math.max(0, count - left)
      left -= count - first
      leaf(page, h, count, first)
      pages.push(n)
      keys.push(upper)
      return left > 0
    })
    return { pages: Int32Array.from(pages.reverse()), maxKey: BigInt64Array.from(keys.reverse()) }
  }

  /** Same, newest first. */
  scanBackward(
    from: number,
    to: number,
    row: (cell: CellReader) => boolean | void,
    budget?: OverflowBudget,
  ): void {
    const pages = this.chain.leaves.pages
    this.cell.startPass(budget)
    for (let l = to - 1; l >= from; l--) if (!this.leafBackward(pages[l]!, row)) return
  }

  private leafBackward(n: number, row: (cell: CellReader) => boolean | void): boolean {
    // The read-behind window: the callback may read pages through page() meanwhile.
    const page = this.pager.pageBehind(n)
    const h = headerOffset(n)
    const count = leafCells(page, n, this.pager.pageSize, this.chain.spec.root)
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

  close(): void {
    this.pager.close()
  }
}
