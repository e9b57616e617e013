// Walking a table b-tree (file format §1.6): the ordered list of its leaf pages, read from the interior
// pages only. Pages and cells are decoded by the one format module (../sqlite/), strictly.
import { nativeLeafList } from '../addon/leaf-pages'
import type { Pager } from './pager'
import { Unsupported } from '../sqlite/decline'
import { cellCount, headerOffset, PAGE_INTERIOR_TABLE, PAGE_LEAF_TABLE } from '../sqlite/page'
import { readVarint, varint } from '../sqlite/varint'
import type { LeafList } from './leaf-list'

export type { LeafList } from './leaf-list'

const INT64_MAX = 2n ** 63n - 1n

/**
 * The deepest page SQLite's cursor reaches: btree.c moveToChild refuses to go below depth
 * BTCURSOR_MAX_DEPTH - 1 (19, the root being 0) as corruption.
 */
export const MAX_DEPTH = 19

/**
 * Leaf pages of the table b-tree rooted at `root`, in rowid order. Only interior pages are read:
 * SQLite's b-trees are balanced, so when an interior page's first child is a leaf all its children
 * are; a file where that is not so fails the leaf check when the leaves are scanned.
 */
export function collectLeaves(pager: Pager, root: number): LeafList {
  return nativeLeafList(pager, root) ?? collectLeavesHere(pager, root)
}

/** collectLeaves in TypeScript: without the addon, and for every tree the addon leaves to it. */
export function collectLeavesHere(pager: Pager, root: number): LeafList {
  // Typed arrays, sized for every page of the file to be a leaf: a chain of millions of leaves must
  // not become millions of boxed numbers and BigInts, and on this project's VMs growing them by
  // doubling cost more than the walk (every fresh page of memory is a slow fault; untouched ones
  // cost nothing). A key that is a safe integer (all of them, in practice) is written as two
  // 32-bit halves through `keyWords`, without making a BigInt.
  const pages = new Int32Array(pager.dbPages)
  const keys = new BigInt64Array(pager.dbPages)
  const keyWords = new Int32Array(keys.buffer)
  let count = 0
  const used = new Uint8Array(pager.dbPages + 1)
  const claim = (n: number): void => {
    if (!Number.isInteger(n) || n < 1 || n > pager.dbPages || used[n])
      throw new Unsupported('b-tree page out of range or reached twice')
    used[n] = 1
  }
  // Pages are read into buffers kept for the walk, one per depth (a page is kept while its
  // children are visited): a fresh buffer per page cost more than the read here (see above).
  const buffers: Buffer[] = []
  const pageAt = (n: number, depth: number): Buffer =>
    pager.pageInto(n, (buffers[depth] ??= Buffer.allocUnsafe(pager.pageSize)))
  const pageType = (n: number, depth: number): number => pageAt(n, depth)[headerOffset(n)]!
  /** A leaf already claimed, with the divider key above it: `upper`, or else the last varint read. */
  const push = (n: number, upper: bigint | null): void => {
    // claim() admits each page once, so count stays below dbPages.
    pages[count] = n
    if (upper !== null) keys[count] = upper
    else if (varint.big !== null) keys[count] = varint.big
    else {
      const v = varint.value
      keyWords[2 * count] = v >>> 0
      keyWords[2 * count + 1] = Math.floor(v / 2 ** 32)
    }
    count++
  }
  const visit = (n: number, upper: bigint, depth: number): void => {
    if (depth > MAX_DEPTH) throw new Unsupported('b-tree deeper than SQLite reads')
    claim(n)
    const page = pageAt(n, depth)
    const h = headerOffset(n)
    const kind = page[h]
    if (kind === PAGE_LEAF_TABLE) {
      push(n, upper)
      return
    }
    if (kind !== PAGE_INTERIOR_TABLE) throw new Unsupported(`page ${n} is not a table b-tree page`)
    // An interior page with no cell is corruption to SQLite, the root included, but for page 1
    // (btree.c moveToRoot: `if( pRoot->pgno!=1 ) return SQLITE_CORRUPT_BKPT;` then its right child):
    // balance_nonroot copies a root's only child into it only when the child fits below the root's
    // header (`pParent->hdrOffset<=apNew[0]->nFree`), so sqlite_master that shrank after a split
    // keeps page 1 an interior page with no cell whenever its child has under 100 bytes free.
    const cells = cellCount(page, n, pager.pageSize, depth === 0 && n === 1 ? 1 : -1)
    if (h + 12 + 2 * cells > page.length) throw new Unsupported('cell count beyond the page')
    const cellAt = (i: number): number => {
      const at = page.readUInt16BE(h + 12 + 2 * i)
      if (at + 5 > page.length) throw new Unsupported('cell pointer out of the page')
      return at
    }
    const right = page.readUInt32BE(h + 8)
    const first = cells > 0 ? page.readUInt32BE(cellAt(0)) : right
    if (pageType(first, depth + 1) === PAGE_LEAF_TABLE) {
      if (depth + 1 > MAX_DEPTH) throw new Unsupported('b-tree deeper than SQLite reads')
      for (let i = 0; i < cells; i++) {
        const at = cellAt(i)
        const child = page.readUInt32BE(at)
        claim(child)
        readVarint(page, at + 4)
        push(child, null)
      }
      claim(right)
      push(right, upper)
      return
    }
    for (let i = 0; i < cells; i++) {
      const at = cellAt(i)
      readVarint(page, at + 4)
      visit(page.readUInt32BE(at), varint.big ?? BigInt(varint.value), depth + 1)
    }
    visit(right, upper, depth + 1)
  }
  visit(root, INT64_MAX, 0)
  return { pages: pages.subarray(0, count), maxKey: keys.subarray(0, count) }
}

/**
 * Visit the leaves of the b-tree rooted at `root` from the last one backward, reading only the
 * interior pages on the way down the right edge; `leaf` gets each leaf with the upper bound of its
 * rowids (as LeafList.maxKey holds it) and returns false to stop. For the newest rows
 * of a large chain without listing all its leaves.
 */
export function walkLeavesBackward(
  pager: Pager,
  root: number,
  leaf: (n: number, upper: bigint) => boolean,
): void {
  let steps = 0
  const visit = (n: number, depth: number, upper: bigint): boolean => {
    if (depth > MAX_DEPTH || ++steps > pager.dbPages)
      throw new Unsupported('b-tree deeper than SQLite reads, or with a cycle')
    // Through the read-behind window, where the leaf callback will find the page again; only an
    // interior page, kept while its children are read, is copied.
    const seen = pager.pageBehind(n)
    const h = headerOffset(n)
    if (seen[h] === PAGE_LEAF_TABLE) return leaf(n, upper)
    if (seen[h] !== PAGE_INTERIOR_TABLE) throw new Unsupported(`page ${n} is not a table b-tree page`)
    const page = Buffer.from(seen)
    const cells = cellCount(page, n, pager.pageSize, -1)
    if (h + 12 + 2 * cells > page.length) throw new Unsupported('cell count beyond the page')
    if (!visit(page.readUInt32BE(h + 8), depth + 1, upper)) return false
    for (let i = cells - 1; i >= 0; i--) {
      const at = page.readUInt16BE(h + 12 + 2 * i)
      if (at + 4 > page.length) throw new Unsupported('cell pointer out of the page')
      readVarint(page, at + 4)
      if (!visit(page.readUInt32BE(at), depth + 1, varint.big ?? BigInt(varint.value))) return false
    }
    return true
  }
  visit(root, 0, INT64_MAX)
}

/** First leaf whose rowids may reach `key` (binary search on the upper bounds). */
export function leafFor(leaves: LeafList, key: bigint): number {
  let lo = 0
  let hi = leaves.pages.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (leaves.maxKey[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
