// Walking a table b-tree: the ordered list of its leaf pages (read from the interior pages only) and
// the decoding of leaf cells into record columns, overflow chains included.
import { nativeLeafList } from '../../native/leaf-pages'
import type { Pager } from './pager'
import {
  localPayload,
  PAGE_INTERIOR_TABLE,
  PAGE_LEAF_TABLE,
  readIntBig,
  readIntNumber,
  readVarint,
  serialSize,
  Unsupported,
  varint,
} from './format'
import type { LeafList } from './leaf-list'

export type { LeafList } from './leaf-list'

const INT64_MAX = 2n ** 63n - 1n

/** Where a page's b-tree header starts: after the 100-byte file header on page 1. */
export const headerOffset = (n: number): number => (n === 1 ? 100 : 0)

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
    if (depth > 40) throw new Unsupported('b-tree of absurd depth')
    claim(n)
    const page = pageAt(n, depth)
    const h = headerOffset(n)
    const kind = page[h]
    if (kind === PAGE_LEAF_TABLE) {
      push(n, upper)
      return
    }
    if (kind !== PAGE_INTERIOR_TABLE) throw new Unsupported(`page ${n} is not a table b-tree page`)
    const cells = page.readUInt16BE(h + 3)
    if (h + 12 + 2 * cells > page.length) throw new Unsupported('cell count beyond the page')
    const cellAt = (i: number): number => {
      const at = page.readUInt16BE(h + 12 + 2 * i)
      if (at + 5 > page.length) throw new Unsupported('cell pointer out of the page')
      return at
    }
    const right = page.readUInt32BE(h + 8)
    const first = cells > 0 ? page.readUInt32BE(cellAt(0)) : right
    if (pageType(first, depth + 1) === PAGE_LEAF_TABLE) {
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
    if (depth > 40 || ++steps > pager.dbPages) throw new Unsupported('b-tree of absurd depth or with a cycle')
    // Through the read-behind window, where the leaf callback will find the page again; only an
    // interior page, kept while its children are read, is copied.
    const seen = pager.pageBehind(n)
    const h = headerOffset(n)
    if (seen[h] === PAGE_LEAF_TABLE) return leaf(n, upper)
    if (seen[h] !== PAGE_INTERIOR_TABLE) throw new Unsupported(`page ${n} is not a table b-tree page`)
    const page = Buffer.from(seen)
    const cells = page.readUInt16BE(h + 3)
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

/**
 * One decoded leaf cell, reused from row to row: rowid, and per column its serial type and the
 * offset of its value in `buf` (the page itself, or the assembled payload of an overflowing cell).
 * Valid until the next `read` or page fetch.
 */
export class CellReader {
  rowid = 0
  rowidBig: bigint | null = null
  buf: Buffer = Buffer.alloc(0)
  readonly types: Int32Array
  readonly offs: Int32Array
  private readonly usable: number

  constructor(
    private readonly pager: Pager,
    readonly ncols: number,
    reserved: number,
  ) {
    this.types = new Int32Array(ncols)
    this.offs = new Int32Array(ncols)
    this.usable = pager.pageSize - reserved
  }

  read(page: Buffer, at: number): void {
    let p = at
    p += readVarint(page, p)
    const size = varint.value
    if (varint.big !== null || size < 0) throw new Unsupported('absurd payload size')
    p += readVarint(page, p)
    this.rowid = varint.value
    this.rowidBig = varint.big
    const local = localPayload(size, this.usable)
    let buf: Buffer
    let base: number
    if (local === size) {
      if (p + size > page.length) throw new Unsupported('cell runs past its page')
      buf = page
      base = p
    } else {
      buf = this.assemble(page, p, local, size)
      base = 0
    }
    this.buf = buf
    let hp = base
    hp += readVarint(buf, hp)
    const headerEnd = base + varint.value
    let dp = headerEnd
    const end = base + size
    for (let c = 0; c < this.ncols; c++) {
      if (hp < headerEnd) {
        hp += readVarint(buf, hp)
        const t = varint.value
        this.types[c] = t
        this.offs[c] = dp
        dp += serialSize(t)
      } else {
        // Columns added by ALTER TABLE after the row was written are absent: NULL.
        this.types[c] = 0
        this.offs[c] = dp
      }
    }
    if (dp > end || hp > headerEnd) throw new Unsupported('record overruns its payload')
  }

  private assemble(page: Buffer, p: number, local: number, size: number): Buffer {
    if (p + local + 4 > page.length) throw new Unsupported('cell runs past its page')
    const out = Buffer.allocUnsafe(size)
    page.copy(out, 0, p, p + local)
    let got = local
    let next = page.readUInt32BE(p + local)
    let hops = 0
    while (got < size) {
      if (next === 0 || ++hops > size) throw new Unsupported('broken overflow chain')
      const ov = this.pager.pageCopy(next)
      const take = Math.min(size - got, this.usable - 4)
      ov.copy(out, got, 4, 4 + take)
      got += take
      next = ov.readUInt32BE(0)
    }
    return out
  }

  /** The record's own bytes (this reader), for accelerators that prove facts on them. */
  get record(): this {
    return this
  }

  isNull(c: number): boolean {
    return this.types[c] === 0
  }

  isText(c: number): boolean {
    const t = this.types[c]!
    return t >= 13 && (t & 1) === 1
  }

  isInt(c: number): boolean {
    const t = this.types[c]!
    return (t >= 1 && t <= 6) || t === 8 || t === 9
  }

  /** A TEXT column as a string; null for any other type. */
  text(c: number): string | null {
    const t = this.types[c]!
    if (t < 13 || (t & 1) === 0) return null
    const o = this.offs[c]!
    return this.buf.toString('utf8', o, o + ((t - 13) >> 1))
  }

  /** Raw bytes of a TEXT or BLOB value (a view into the page). */
  bytes(c: number): Buffer | null {
    const t = this.types[c]!
    if (t < 12) return null
    const o = this.offs[c]!
    return this.buf.subarray(o, o + ((t - 12) >> 1))
  }

  intBig(c: number): bigint | null {
    return this.isInt(c) ? readIntBig(this.buf, this.offs[c]!, this.types[c]!) : null
  }

  /** The value as better-sqlite3 returns it without safeIntegers. */
  value(c: number): unknown {
    const t = this.types[c]!
    const o = this.offs[c]!
    if (t === 0) return null
    if (t === 7) return this.buf.readDoubleBE(o)
    if (t < 12) return readIntNumber(this.buf, o, t)
    if (t & 1) return this.buf.toString('utf8', o, o + ((t - 13) >> 1))
    return Buffer.from(this.buf.subarray(o, o + ((t - 12) >> 1)))
  }

  /** The value as better-sqlite3 returns it with safeIntegers (integers as BigInt). */
  valueBig(c: number): unknown {
    return this.isInt(c) ? this.intBig(c) : this.value(c)
  }

  /**
   * `CAST(col AS BLOB)`: TEXT and BLOB as their bytes, NULL as null, an integer as its decimal text.
   * A REAL would need SQLite's own float formatting: that file is left to SQLite.
   */
  castBlob(c: number): Buffer | null {
    const t = this.types[c]!
    if (t === 0) return null
    if (t >= 12) return this.bytes(c)
    if (t === 7) throw new Unsupported('a REAL value where bytes are expected')
    return Buffer.from(readIntBig(this.buf, this.offs[c]!, t).toString(), 'latin1')
  }
}
