// B-tree pages (https://www.sqlite.org/fileformat2.html §1.6 "B-tree Pages"): the page header (8
// bytes on a leaf, 12 on an interior page, after the 100-byte database header on page 1), the cell
// pointer array after it, the unallocated gap, the cell content area, and the freeblocks. The cell
// layout of a table leaf: payload-size varint, rowid varint, local payload, and a 4-byte first
// overflow page when the payload spills (§1.6, the payload fractions at the end of the section).
import { Unsupported, type Decoding } from './decline'
import { decodeVarint, readVarint, varint, varintBig } from './varint'

export const PAGE_INTERIOR_INDEX = 0x02
export const PAGE_INTERIOR_TABLE = 0x05
export const PAGE_LEAF_INDEX = 0x0a
export const PAGE_LEAF_TABLE = 0x0d

/** Where a page's b-tree header starts: after the 100-byte file header on page 1. */
export const headerOffset = (n: number): number => (n === 1 ? 100 : 0)

/** Whether `type` is one of the four b-tree page types. */
export const isBtreeType = (type: number | undefined): boolean =>
  type === PAGE_LEAF_TABLE ||
  type === PAGE_INTERIOR_TABLE ||
  type === PAGE_LEAF_INDEX ||
  type === PAGE_INTERIOR_INDEX

/** Bytes of the b-tree page header of this type: 12 for an interior page (its right child), 8 for a leaf. */
export const btreeHeaderSize = (type: number): number =>
  type === PAGE_INTERIOR_TABLE || type === PAGE_INTERIOR_INDEX ? 12 : 8

/** Most cells a page may say it has (btree.c MX_CELL; btreeInitPage calls more corruption). */
export const maxCells = (pageSize: number): number => Math.floor((pageSize - 8) / 6)

/**
 * Cells of table b-tree page `n` (header at headerOffset(n)). `strict`, as btreeInitPage and
 * moveToChild (btree.c) accept them: at most MX_CELL, and at least one on any page but `root` (an
 * empty child is corruption to SQLite). `tolerant`: the count as stored.
 */
export function cellCount(
  page: Uint8Array,
  n: number,
  pageSize: number,
  root: number,
  mode: Decoding = 'strict',
): number {
  const h = headerOffset(n)
  const count = (page[h + 3]! << 8) | page[h + 4]!
  if (mode === 'tolerant') return count
  if (count > maxCells(pageSize)) throw new Unsupported(`page ${n} claims too many cells`)
  if (count === 0 && n !== root) throw new Unsupported(`page ${n} is an empty child page`)
  return count
}

/** Strict: the cell count of table leaf `n` of the tree rooted at `root` (see cellCount). */
export function leafCells(page: Uint8Array, n: number, pageSize: number, root: number): number {
  if (page[headerOffset(n)] !== PAGE_LEAF_TABLE) throw new Unsupported(`page ${n} is not a table leaf`)
  return cellCount(page, n, pageSize, root)
}

/**
 * Local payload bytes of a table b-tree leaf cell of payload `p` (§1.6: X = U−35, M =
 * ((U−12)·32/255)−23, K = M+((P−M) mod (U−4)); all of P when P ≤ X, else K when K ≤ X, else M),
 * U = usable page size.
 */
export function localPayload(p: number, usable: number): number {
  const x = usable - 35
  if (p <= x) return p
  const m = Math.floor(((usable - 12) * 32) / 255) - 23
  const k = m + ((p - m) % (usable - 4))
  return k <= x ? k : m
}

/** The next page of an overflow chain: the first four bytes of an overflow page (0 ends the chain). */
export const nextOverflowPage = (page: Buffer): number => page.readUInt32BE(0)

/** Payload bytes an overflow page holds (§1.6: a 4-byte next-page number, then the rest of the usable size). */
export const overflowChunk = (usable: number): number => usable - 4

/**
 * The rowid of the table leaf cell at `at` (the varint after the payload size), as a BigInt.
 * `strict`: a varint running past the page is declined. `tolerant`: null when either varint runs
 * past `end`.
 */
export function cellRowid(
  page: Uint8Array,
  at: number,
  mode: Decoding = 'strict',
  end = page.length,
): bigint | null {
  if (mode === 'strict') {
    readVarint(page, at + readVarint(page, at))
    return varintBig()
  }
  const a = decodeVarint(page, at, end)
  if (a === 0 || decodeVarint(page, at + a, end) === 0) return null
  return varint.big ?? BigInt(varint.value)
}

/**
 * Tolerant: rowids of the cells a table leaf page (header at `h`) points to, within its usable
 * size; a pointer into the header or past the usable size, or a cell whose varints run past it,
 * gives none. Empty for any other page type.
 */
export function leafCellRowids(page: Uint8Array, h: number, usable: number): bigint[] {
  if (page[h] !== PAGE_LEAF_TABLE) return []
  const cells = (page[h + 3]! << 8) | page[h + 4]!
  const out: bigint[] = []
  for (let i = 0; i < cells && h + 8 + 2 * i + 2 <= usable; i++) {
    const p = (page[h + 8 + 2 * i]! << 8) | page[h + 9 + 2 * i]!
    if (p < h + 8 || p >= usable) continue
    const rowid = cellRowid(page, p, 'tolerant', usable)
    if (rowid !== null) out.push(rowid)
  }
  return out
}

/** A byte range [from, to) of a page. */
export interface Span {
  from: number
  to: number
}

/**
 * Tolerant: the unallocated gap of the b-tree page at `base` in `buf` (header at `base + h`),
 * between the end of the cell pointer array and the start of the cell content area (0 meaning
 * 65536), relative to `base`; null when empty or absurd.
 */
export function cellGap(buf: Uint8Array, base: number, h: number, usable: number): Span | null {
  const at = base + h
  const cells = (buf[at + 3]! << 8) | buf[at + 4]!
  const content = (buf[at + 5]! << 8) | buf[at + 6]! || 65536
  const from = h + btreeHeaderSize(buf[at]!) + 2 * cells
  const to = Math.min(content, usable)
  return to > from ? { from, to } : null
}

/**
 * Tolerant: the freeblocks of the page at `base` (header at `h`), in chain order (each: 2-byte
 * offset of the next, 2-byte size, then the freed bytes); the walk stops at anything malformed: a
 * block not after the previous one (btreeComputeFreeSpace requires ascending order), smaller than 4
 * bytes or past the usable size.
 */
export function freeblocks(buf: Uint8Array, base: number, h: number, usable: number): Span[] {
  const out: Span[] = []
  let next = (buf[base + h + 1]! << 8) | buf[base + h + 2]!
  let last = 0
  while (next !== 0 && next > last && next + 4 <= usable && out.length < usable / 4) {
    const size = (buf[base + next + 2]! << 8) | buf[base + next + 3]!
    if (size < 4 || next + size > usable) break
    out.push({ from: next, to: next + size })
    last = next
    next = (buf[base + next]! << 8) | buf[base + next + 1]!
  }
  return out
}
