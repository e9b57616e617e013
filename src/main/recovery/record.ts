// Recognising one record of the chain table in raw page bytes, from the position of its anchor (the
// hash columns' serial types, ./layout.ts). A table b-tree leaf cell is (file-format §1.6):
// payload size varint, rowid varint, then the record: header size varint, one serial type varint per
// column, the values (§2.1). Deleting a cell leaves it in place; when it becomes a freeblock its first
// four bytes are overwritten by the freeblock's next-pointer and size, which takes the payload size and
// the rowid (and, with a 1-byte rowid, the header size too). So the record is matched from its
// header, outwards:
// - the serial types before the anchor are read backwards (a varint's last byte is < 0x80 and its
//   others are >= 0x80, so the previous column's varint bounds it), the first column's and the header
//   size by trying each length;
// - with the header size intact, the header must be exactly as long as it says; without it
//   ("headless"), the header is as long as the columns' types;
// - values must fit their columns (integers where integers are, 64 lowercase hex characters for the
//   three hashes), and the rowid is taken only where the payload size before it equals the record's.
// The bytes are decoded by the one SQLite format module (../chain/sqlite/), in its tolerant mode: a
// varint running past its bounds, a reserved serial type, an absurd size answer 0 / -1 / null there,
// and the candidate is dropped here.
import { MAX_PAYLOAD } from '../chain/sqlite/cell'
import { localPayload } from '../chain/sqlite/page'
import { intOfType, serialSize } from '../chain/sqlite/record'
import { decodeVarint, varint, varintBig, varintStartBefore } from '../chain/sqlite/varint'
import { HASH_TYPE, type RecordLayout } from './layout'
import type { RecoverySource } from '../../shared/recovery-types'

export interface CarvedRecord {
  /** Offset in the page where the record (its header size byte) starts. */
  start: number
  /** The rowid, when the cell's start survived (payload size and rowid before the record). */
  rowid: bigint | null
  /** The header size byte was overwritten (the header was matched from its column types alone). */
  headless: boolean
  /** Bytes of the record (header and values). */
  payload: number
  /** Whether the record continued on overflow pages. */
  overflow: boolean
  ts: bigint | null
  canonical: string
  prev: string
  hmac: string
  /** The body bytes (read from the overflow pages on each call); null when they did not survive. */
  readBody(): Buffer | null
}

/** The part of a payload past its local bytes: random access into an overflow chain that holds. */
export interface OverflowChain {
  /** Bytes [from, from + len) of the overflow part; null where the chain does not reach. */
  read(from: number, len: number): Buffer | null
}

/** The overflow chain of `need` bytes starting at page `first`, or null when it does not hold together. */
export type OverflowReader = (first: number, need: number) => OverflowChain | null

/**
 * Tolerant: the varint at `off`, all of it before `end`, as a number: its length, or 0 when it runs
 * past `end` or is negative (a nine-byte varint with the top bit set: no size, type or header size
 * of a record), the value in `varint.value`.
 */
function varintAt(buf: Uint8Array, off: number, end: number): number {
  const n = decodeVarint(buf, off, end)
  return n > 0 && varint.value >= 0 ? n : 0
}

/**
 * Serial types 10 and 11 (§2.1: reserved) are a NULL of no bytes to SQLite's reads (vdbe.c
 * sqlite3VdbeSerialGet: 10 a NULL with the no-change flag, 11 a NULL; sqlite3SmallTypeSizes gives
 * both 0), and it reads a row whose rowid-alias column holds one as any other: the carver takes them
 * where a NULL fits.
 */
const isNullType = (t: number): boolean => t === 0 || t === 10 || t === 11

/** Bytes a value of serial type `t` takes (10 and 11: none, as SQLite reads them). */
const typeSize = (t: number): number => (t === 10 || t === 11 ? 0 : serialSize(t, 'tolerant'))

function fits(role: RecordLayout['roles'][number], t: number): boolean {
  switch (role) {
    case 'rowid':
      return isNullType(t)
    case 'seq':
      return isNullType(t) || (t >= 1 && t <= 6) || t === 8 || t === 9
    case 'int':
      return (t >= 1 && t <= 6) || t === 8 || t === 9
    case 'hash':
      return t === HASH_TYPE
    case 'body':
      return t >= 12
    default:
      return true
  }
}

function isLowerHex64(buf: Uint8Array, off: number): boolean {
  for (let i = off; i < off + 64; i++) {
    const b = buf[i]!
    if (!((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66))) return false
  }
  return true
}

/**
 * The record whose anchor starts at `a` in `page` (one whole page; `usable`: its usable size), or null. `more` follows an
 * overflow chain (null: only records wholly on the page).
 */
export function matchRecord(
  page: Buffer,
  a: number,
  usable: number,
  L: RecordLayout,
  more: OverflowReader | null,
): CarvedRecord | null {
  const types = new Array<number>(L.ncols).fill(0)
  for (let c = 0; c < L.anchorCols; c++) types[L.anchorCol + c] = HASH_TYPE
  // Columns between the first and the anchor, read backwards.
  let q = a
  for (let c = L.anchorCol - 1; c >= 1; c--) {
    const st = varintStartBefore(page, q)
    if (st < 0 || varintAt(page, st, q) !== q - st || !fits(L.roles[c]!, varint.value)) return null
    types[c] = varint.value
    q = st
  }
  if (L.anchorCol === 0) return withHeader(page, a, a, usable, L, types, more)
  // The first column: each length its varint may have (what precedes it may be overwritten).
  for (let len0 = 1; len0 <= 9 && len0 <= q; len0++) {
    const q0 = q - len0
    if (varintAt(page, q0, q) !== len0 || !fits(L.roles[0]!, varint.value)) continue
    types[0] = varint.value
    const found =
      withHeader(page, q0, a, usable, L, types, more) ?? headless(page, q0, a, usable, L, types, more)
    if (found) return found
  }
  return null
}

/** Forward from the anchor: types of columns anchorCol+anchorCols.. up to `hdrEnd` (or `n` columns); the header end, or -1. */
function typesAfter(
  page: Buffer,
  a: number,
  L: RecordLayout,
  types: number[],
  hdrEnd: number,
  n: number,
): number {
  let p = a + 2 * L.anchorCols
  let c = L.anchorCol + L.anchorCols
  const limit = hdrEnd >= 0 ? hdrEnd : page.length
  while (hdrEnd >= 0 ? p < hdrEnd : c < n) {
    if (c >= L.ncols) return -1
    const len = varintAt(page, p, limit)
    if (len === 0 || !fits(L.roles[c]!, varint.value)) return -1
    types[c++] = varint.value
    p += len
  }
  if (hdrEnd >= 0 && (p !== hdrEnd || c < L.minCols)) return -1
  for (; c < L.ncols; c++) types[c] = 0
  return p
}

function withHeader(
  page: Buffer,
  q0: number,
  a: number,
  usable: number,
  L: RecordLayout,
  types: number[],
  more: OverflowReader | null,
): CarvedRecord | null {
  for (let k = 1; k <= 3 && k <= q0; k++) {
    const s = q0 - k
    if (varintAt(page, s, q0) !== k) continue
    const hdrEnd = s + varint.value
    if (hdrEnd <= a || hdrEnd > page.length) continue
    const t = types.slice()
    if (typesAfter(page, a, L, t, hdrEnd, 0) < 0) continue
    const rec = values(page, s, hdrEnd - s, usable, L, t, more, false)
    if (rec) return rec
  }
  return null
}

function headless(
  page: Buffer,
  q0: number,
  a: number,
  usable: number,
  L: RecordLayout,
  types: number[],
  more: OverflowReader | null,
): CarvedRecord | null {
  for (let n = L.ncols; n >= L.minCols; n--) {
    const t = types.slice()
    const hdrEnd = typesAfter(page, a, L, t, -1, n)
    if (hdrEnd < 0) continue
    const h1 = hdrEnd - q0 + 1
    const h = h1 < 128 ? h1 : h1 + 1
    const rec = values(page, hdrEnd - h, h, usable, L, t, more, true)
    if (rec) return rec
  }
  return null
}

function values(
  page: Buffer,
  s: number,
  h: number,
  usable: number,
  L: RecordLayout,
  types: number[],
  more: OverflowReader | null,
  headless: boolean,
): CarvedRecord | null {
  let size = h
  for (let c = 0; c < L.ncols; c++) size += typeSize(types[c]!)
  if (size > MAX_PAYLOAD || s < 0) return null
  // The split between the page and the overflow chain is the usable size's (file format §1.6); the
  // bounds are SQLite's reads (btree.c): a wholly local record is read from the page up to its end,
  // aDataEnd = aData + pageSize (fetchPayload; reserved bytes at the end of a page do not stop it),
  // while a spilling one must end its local part within the usable size (accessPayload) and its
  // overflow pointer follows that part.
  const local = localPayload(size, usable)
  let chain: OverflowChain | null = null
  if (local === size) {
    if (s + size > page.length) return null
  } else {
    if (s + local > usable || s + local + 4 > page.length || more === null) return null
    chain = more(page.readUInt32BE(s + local), size - local)
    if (chain === null) return null
  }
  // Bytes [off, off + len) of the payload: on the page, or (past the local part) in the overflow chain.
  const read = (off: number, len: number): Buffer | null => {
    if (off + len <= local) return page.subarray(s + off, s + off + len)
    if (chain === null) return null
    if (off >= local) return chain.read(off - local, len)
    const rest = chain.read(0, off + len - local)
    return rest && Buffer.concat([page.subarray(s + off, s + local), rest])
  }
  const offs = new Array<number>(L.ncols)
  let dp = h
  for (let c = 0; c < L.ncols; c++) {
    offs[c] = dp
    dp += typeSize(types[c]!)
  }
  const hashes: string[] = []
  for (const c of [L.canonical, L.prev, L.hmac]) {
    const b = read(offs[c]!, 64)
    if (b === null || !isLowerHex64(b, 0)) return null
    hashes.push(b.toString('latin1'))
  }
  const tsBytes = read(offs[L.ts]!, typeSize(types[L.ts]!))
  const bodyAt = offs[L.body]!
  const bodyLen = typeSize(types[L.body]!)
  return {
    start: s,
    rowid: headless ? null : rowidBefore(page, s, size),
    headless,
    payload: size,
    overflow: chain !== null,
    ts: tsBytes === null ? null : intOfType(tsBytes, 0, types[L.ts]!),
    canonical: hashes[0]!,
    prev: hashes[1]!,
    hmac: hashes[2]!,
    // A body on overflow pages is read only when asked for (most records found are copies of live rows).
    readBody: () => {
      const b = read(bodyAt, bodyLen)
      return b === null ? null : Buffer.from(b)
    },
  }
}

/** The rowid of the cell whose record starts at `s`, when the payload size before it equals `size`. */
function rowidBefore(page: Buffer, s: number, size: number): bigint | null {
  for (let r = 1; r <= 9 && r < s; r++) {
    const rs = s - r
    // A rowid is any signed 64-bit integer, negative ones included.
    if (decodeVarint(page, rs, s) !== r) continue
    for (let p = 1; p <= 5 && p <= rs; p++) {
      if (varintAt(page, rs - p, rs) === p && varint.value === size) {
        decodeVarint(page, rs, s)
        return varintBig()
      }
    }
  }
  return null
}

/** A record carved, where it was found (./carve.ts), or three hashes whose record is lost (./orphan-hashes.ts). */
export interface RawHit {
  rec: CarvedRecord
  source: RecoverySource
  /** Rowids of the cells of the same page version: where a row without its rowid may sit. */
  neighbours: bigint[]
}
