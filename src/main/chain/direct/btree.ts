// Walking a table b-tree: the ordered list of its leaf pages (read from the interior pages only) and
// the decoding of leaf cells into record columns, overflow chains included.
import { nativeLeafList } from '../addon/leaf-pages'
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

/** SQLITE_MAX_LENGTH: the largest value SQLite reads (a larger record is declined). */
const MAX_PAYLOAD = 1_000_000_000

/** Where a page's b-tree header starts: after the 100-byte file header on page 1. */
export const headerOffset = (n: number): number => (n === 1 ? 100 : 0)

/**
 * The deepest page SQLite's cursor reaches: btree.c moveToChild refuses to go below depth
 * BTCURSOR_MAX_DEPTH - 1 (19, the root being 0) as corruption.
 */
export const MAX_DEPTH = 19

/** Most cells a page may say it has (btree.c MX_CELL; btreeInitPage calls more corruption). */
export const maxCells = (pageSize: number): number => Math.floor((pageSize - 8) / 6)

/**
 * Cells of table b-tree page `n` as btreeInitPage and moveToChild (btree.c) accept them: at most
 * MX_CELL, and at least one on any page but the root (an empty child is corruption to SQLite).
 */
export function cellCount(page: Uint8Array, n: number, pageSize: number, root: number): number {
  const h = headerOffset(n)
  const count = (page[h + 3]! << 8) | page[h + 4]!
  if (count > maxCells(pageSize)) throw new Unsupported(`page ${n} claims too many cells`)
  if (count === 0 && n !== root) throw new Unsupported(`page ${n} is an empty child page`)
  return count
}

/** The cell count of table leaf `n` of the tree rooted at `root` (see cellCount). */
export function leafCells(page: Uint8Array, n: number, pageSize: number, root: number): number {
  if (page[headerOffset(n)] !== PAGE_LEAF_TABLE) throw new Unsupported(`page ${n} is not a table leaf`)
  return cellCount(page, n, pageSize, root)
}

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
    // An interior page with no cell is corruption to SQLite, the root included (moveToRoot).
    const cells = cellCount(page, n, pager.pageSize, -1)
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

  /**
   * `minFields`: a record with fewer fields is declined, since a column past its end would read as
   * that column's DEFAULT (see ColumnLayout.minFields).
   */
  constructor(
    private readonly pager: Pager,
    readonly ncols: number,
    reserved: number,
    readonly minFields = 0,
  ) {
    this.types = new Int32Array(ncols)
    this.offs = new Int32Array(ncols)
    this.usable = pager.pageSize - reserved
  }

  /**
   * Decodes the cell at `at` of a table leaf as SQLite reads it (btree.c btreeParseCellPtr and
   * accessPayload, vdbe.c OP_Column; file format §1.6 "B-tree Pages" and §2.1 "Record Format"),
   * declining every cell SQLite would call corrupt or read otherwise: a cell past the page, local
   * payload past the usable size, a record header that is not consumed exactly by its fields, field
   * sizes that do not add up to the payload, more fields than the table has, fewer than `minFields`.
   */
  read(page: Buffer, at: number): void {
    // findCell masks the pointer to the page: one beyond it is declined rather than wrapped.
    if (at >= page.length) throw new Unsupported('cell pointer beyond the page')
    let p = at
    p += readVarint(page, p)
    const size = varint.value
    // Payload sizes are 32-bit in btreeParseCellPtr, and no value may exceed SQLITE_MAX_LENGTH.
    if (varint.big !== null || size < 0 || size > MAX_PAYLOAD) throw new Unsupported('absurd payload size')
    p += readVarint(page, p)
    this.rowid = varint.value
    this.rowidBig = varint.big
    const local = localPayload(size, this.usable)
    // accessPayload: the local part must end within the usable size, else SQLITE_CORRUPT.
    if (p + local > this.usable) throw new Unsupported('cell runs past the usable page')
    let buf: Buffer
    let base: number
    if (local === size) {
      buf = page
      base = p
    } else {
      buf = this.assemble(page, p, local, size)
      base = 0
    }
    this.buf = buf
    const end = base + size
    let hp = base
    hp += readVarint(buf, hp)
    const headerSize = varint.value
    // A header of 0 bytes (read by SQLite as all NULL), or shorter than its own size varint, or
    // longer than the payload: declined.
    if (varint.big !== null || headerSize < hp - base || headerSize > size)
      throw new Unsupported('record header size')
    const headerEnd = base + headerSize
    let dp = headerEnd
    let fields = 0
    let real = false
    for (let c = 0; c < this.ncols; c++) {
      if (hp < headerEnd) {
        hp += readVarint(buf, hp)
        const t = varint.value
        if (varint.big !== null || t > 0x7fffffff) throw new Unsupported('absurd serial type')
        if (t === 7) real = true
        this.types[c] = t
        this.offs[c] = dp
        dp += serialSize(t)
        fields++
      } else {
        // A column added by ALTER TABLE after the row was written: NULL, as it has no DEFAULT
        // (minFields says where one has).
        this.types[c] = 0
        this.offs[c] = dp
      }
    }
    // OP_Column: the header used up but not all data, or data past the record, is corruption;
    // more fields than columns are left to SQLite.
    if (hp !== headerEnd) throw new Unsupported('record header with more fields than the table, or overrun')
    if (dp !== end) throw new Unsupported('record fields do not fill its payload')
    if (fields < this.minFields) throw new Unsupported('short record where a DEFAULT would be read')
    // serialGet (vdbeaux.c): a REAL that is a NaN reads as NULL.
    if (real)
      for (let c = 0; c < this.ncols; c++)
        if (this.types[c] === 7 && Number.isNaN(buf.readDoubleBE(this.offs[c]!))) this.types[c] = 0
  }

  private assemble(page: Buffer, p: number, local: number, size: number): Buffer {
    if (p + local + 4 > this.usable) throw new Unsupported('overflow pointer past the usable page')
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
