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
import { localPayload } from '../chain/direct/format'
import { HASH_TYPE, type RecordLayout } from './layout'

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

let vNum = 0

/** Varint at `off` as a number (exact below 2^53), length returned; 0 when it runs past `end`. */
function varintAt(buf: Uint8Array, off: number, end: number): number {
  let v = 0
  for (let i = 0; i < 9; i++) {
    if (off + i >= end) return 0
    const b = buf[off + i]!
    if (i === 8) {
      vNum = v * 256 + b
      return 9
    }
    v = v * 128 + (b & 0x7f)
    if (b < 0x80) {
      vNum = v
      return i + 1
    }
  }
  return 0
}

/** The rowid varint at `off` as a signed 64-bit BigInt (its length is known to fit). */
function varintBig(buf: Uint8Array, off: number, len: number): bigint {
  let v = 0n
  for (let i = 0; i < len; i++) {
    const b = buf[off + i]!
    v = i === 8 ? (v << 8n) | BigInt(b) : (v << 7n) | BigInt(b & 0x7f)
  }
  return BigInt.asIntN(64, v)
}

/** Bytes a value of serial type `t` takes; -1 for the reserved types 10 and 11. */
export function typeSize(t: number): number {
  if (t >= 12) return Math.floor((t - 12) / 2)
  if (t <= 4) return t
  if (t === 5) return 6
  if (t === 6 || t === 7) return 8
  if (t === 10 || t === 11) return -1
  return 0
}

function fits(role: RecordLayout['roles'][number], t: number): boolean {
  switch (role) {
    case 'rowid':
      return t === 0
    case 'int':
      return (t >= 1 && t <= 6) || t === 8 || t === 9
    case 'hash':
      return t === HASH_TYPE
    case 'body':
      return t >= 12
    default:
      return t !== 10 && t !== 11
  }
}

/** Start of the varint whose last byte is at `end - 1`, when every byte before it in that varint is bounded by a genuine varint end. */
function varintStartBefore(buf: Uint8Array, end: number): number {
  if (end < 1 || buf[end - 1]! >= 0x80) return -1
  let st = end - 1
  while (st > 0 && end - st < 9 && buf[st - 1]! >= 0x80) st--
  return end - st <= 8 ? st : -1
}

function isLowerHex64(buf: Uint8Array, off: number): boolean {
  for (let i = off; i < off + 64; i++) {
    const b = buf[i]!
    if (!((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66))) return false
  }
  return true
}

const MAX_PAYLOAD = 1_000_000_000

/**
 * The record whose anchor starts at `a` in `page` (of `usable` bytes), or null. `more` follows an
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
    if (st < 0 || varintAt(page, st, q) !== q - st || !fits(L.roles[c]!, vNum)) return null
    types[c] = vNum
    q = st
  }
  if (L.anchorCol === 0) return withHeader(page, a, a, usable, L, types, more)
  // The first column: each length its varint may have (what precedes it may be overwritten).
  for (let len0 = 1; len0 <= 9 && len0 <= q; len0++) {
    const q0 = q - len0
    if (varintAt(page, q0, q) !== len0 || !fits(L.roles[0]!, vNum)) continue
    types[0] = vNum
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
    if (len === 0 || !fits(L.roles[c]!, vNum)) return -1
    types[c++] = vNum
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
    const hdrEnd = s + vNum
    if (hdrEnd <= a || hdrEnd > usable) continue
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
  const local = localPayload(size, usable)
  let chain: OverflowChain | null = null
  if (local === size) {
    if (s + size > usable) return null
  } else {
    if (s + local + 4 > usable || more === null) return null
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
    ts: tsBytes === null ? null : readInt(tsBytes, 0, types[L.ts]!),
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

function readInt(buf: Buffer, off: number, t: number): bigint | null {
  if (t === 8) return 0n
  if (t === 9) return 1n
  const n = typeSize(t)
  if (t < 1 || t > 6) return null
  let v = 0n
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(buf[off + i]!)
  return BigInt.asIntN(n * 8, v)
}

/** The rowid of the cell whose record starts at `s`, when the payload size before it equals `size`. */
function rowidBefore(page: Buffer, s: number, size: number): bigint | null {
  for (let r = 1; r <= 9 && r < s; r++) {
    const rs = s - r
    if (varintAt(page, rs, s) !== r) continue
    for (let p = 1; p <= 5 && p <= rs; p++) {
      if (varintAt(page, rs - p, rs) === p && vNum === size) return varintBig(page, rs, r)
    }
  }
  return null
}
