// Variable-length integers (https://www.sqlite.org/fileformat2.html §1.3 "Variable-length
// integers", util.c sqlite3GetVarint): one to nine bytes, big-endian; the low seven bits of each of
// the first eight bytes and all eight bits of the ninth; a byte below 0x80 ends it. The value is a
// signed 64-bit integer. Strict and tolerant reading are the same decoder: it answers 0 when the
// varint runs past `end`, which strict reading turns into a decline.
import { Unsupported } from './decline'

/**
 * The last varint decoded: `value` (exact to 2^53), and `big`, the exact signed 64-bit value, when
 * `value` is not exact (null otherwise). A shared slot rather than an object per call: varints are
 * read millions of times a scan.
 */
export const varint = { value: 0, big: null as bigint | null }

/**
 * The varint at `off`, all of it before `end` (≤ buf.length): its length, or 0 when it runs past
 * `end` (or `off` is negative); the value in `varint`. Tolerant: never throws.
 */
export function decodeVarint(buf: Uint8Array, off: number, end: number = buf.length): number {
  if (off < 0) return 0
  let v = 0
  // Up to six bytes (42 bits) the value is exact in a double; beyond, it is built as a BigInt.
  for (let i = 0; i < 6; i++) {
    if (off + i >= end) return 0
    const b = buf[off + i]!
    v = v * 128 + (b & 0x7f)
    if ((b & 0x80) === 0) {
      varint.value = v
      varint.big = null
      return i + 1
    }
  }
  return decodeVarintBig(buf, off, end)
}

function decodeVarintBig(buf: Uint8Array, off: number, end: number): number {
  let v = 0n
  for (let i = 0; i < 9; i++) {
    if (off + i >= end) return 0
    const b = buf[off + i]!
    if (i === 8) {
      v = (v << 8n) | BigInt(b)
      return finishBig(v, 9)
    }
    v = (v << 7n) | BigInt(b & 0x7f)
    if ((b & 0x80) === 0) return finishBig(v, i + 1)
  }
  return 0
}

function finishBig(v: bigint, len: number): number {
  const signed = BigInt.asIntN(64, v)
  varint.value = Number(signed)
  varint.big = Number.isSafeInteger(varint.value) && BigInt(varint.value) === signed ? null : signed
  return len
}

/**
 * Strict: the varint at `off` of `buf` (a page or an assembled payload), its length returned and its
 * value in `varint`; a varint that runs past the buffer is declined (SQLite would read bytes that
 * are not the page's).
 */
export function readVarint(buf: Uint8Array, off: number): number {
  const n = decodeVarint(buf, off, buf.length)
  if (n === 0) throw new Unsupported('varint runs past the page')
  return n
}

/** The last varint decoded as a BigInt. */
export const varintBig = (): bigint => varint.big ?? BigInt(varint.value)

/**
 * Tolerant, for reading record headers backwards (carving): the start of the varint whose last byte
 * is at `end - 1`, or -1. Its last byte is below 0x80 and every byte before it in the varint at or
 * above, so the byte before the varint (below 0x80: the previous varint's end) bounds it; a run of
 * more than eight high bytes is no varint.
 */
export function varintStartBefore(buf: Uint8Array, end: number): number {
  if (end < 1 || buf[end - 1]! >= 0x80) return -1
  let st = end - 1
  while (st > 0 && end - st < 9 && buf[st - 1]! >= 0x80) st--
  return end - st <= 8 ? st : -1
}
