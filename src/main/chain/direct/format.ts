// The parts of the SQLite file format (https://www.sqlite.org/fileformat2.html) a chain scan needs:
// varints, record headers and the table b-tree cell layout. Anything this reader does not handle is
// reported as `Unsupported`, and the caller falls back to SQLite on a verified copy: the direct
// reader may decline a file, never misread one.

/** Thrown for any file shape the direct reader leaves to SQLite. Internal: never shown to users. */
export class Unsupported extends Error {
  constructor(why: string) {
    super(why)
    this.name = 'Unsupported'
  }
}

export const PAGE_INTERIOR_TABLE = 0x05
export const PAGE_LEAF_TABLE = 0x0d

/** Varint at `off`: value in `varint.value` (exact only to 2^53; `bigValue` beyond), length returned. */
export const varint = { value: 0, big: null as bigint | null }

export function readVarint(buf: Uint8Array, off: number): number {
  let v = 0
  for (let i = 0; i < 8; i++) {
    const b = buf[off + i]!
    if (i < 6) {
      v = v * 128 + (b & 0x7f)
      if ((b & 0x80) === 0) {
        varint.value = v
        varint.big = null
        return i + 1
      }
    } else {
      return readVarintBig(buf, off)
    }
  }
  return readVarintBig(buf, off)
}

function readVarintBig(buf: Uint8Array, off: number): number {
  let v = 0n
  for (let i = 0; i < 9; i++) {
    const b = buf[off + i]!
    if (i === 8) {
      v = (v << 8n) | BigInt(b)
      return finishBig(v, 9)
    }
    v = (v << 7n) | BigInt(b & 0x7f)
    if ((b & 0x80) === 0) return finishBig(v, i + 1)
  }
  return finishBig(v, 9)
}

function finishBig(v: bigint, len: number): number {
  const signed = BigInt.asIntN(64, v)
  varint.big = signed
  varint.value = Number(signed)
  if (Number.isSafeInteger(varint.value) && BigInt(varint.value) === signed) varint.big = null
  return len
}

/** Bytes a value of this serial type takes in the record body. */
export function serialSize(t: number): number {
  if (t >= 12) return (t - 12) >> 1
  switch (t) {
    case 1:
      return 1
    case 2:
      return 2
    case 3:
      return 3
    case 4:
      return 4
    case 5:
      return 6
    case 6:
    case 7:
      return 8
    case 10:
    case 11:
      throw new Unsupported(`reserved serial type ${t}`)
    default:
      return 0
  }
}

/** A signed big-endian integer of serial type 1..6 as a BigInt. */
export function readIntBig(buf: Uint8Array, off: number, t: number): bigint {
  if (t === 8) return 0n
  if (t === 9) return 1n
  if (t === 6) return (buf as Buffer).readBigInt64BE(off)
  const n = serialSize(t)
  let v = 0n
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(buf[off + i]!)
  return BigInt.asIntN(n * 8, v)
}

/** A signed big-endian integer of serial type 1..6 as a JS number (as better-sqlite3 returns it). */
export function readIntNumber(buf: Uint8Array, off: number, t: number): number {
  if (t === 8) return 0
  if (t === 9) return 1
  const n = serialSize(t)
  if (n <= 6) {
    let u = 0
    for (let i = 0; i < n; i++) u = u * 256 + buf[off + i]!
    return buf[off]! & 0x80 ? u - 256 ** n : u
  }
  return Number(readIntBig(buf, off, t))
}

/** Local payload bytes of a table b-tree leaf cell (fileformat2 §1.6), U = usable page size. */
export function localPayload(p: number, usable: number): number {
  const x = usable - 35
  if (p <= x) return p
  const m = Math.floor(((usable - 12) * 32) / 255) - 23
  const k = m + ((p - m) % (usable - 4))
  return k <= x ? k : m
}
