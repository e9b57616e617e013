// Record format (https://www.sqlite.org/fileformat2.html §2.1 "Record Format"): a header-size
// varint, one serial-type varint per column, then the values. Serial types: 0 NULL, 1–6 big-endian
// two's-complement integers of 1, 2, 3, 4, 6, 8 bytes, 7 a big-endian IEEE 754 double, 8 and 9 the
// integers 0 and 1, 10 and 11 reserved (SQLite reads both as a NULL of no bytes, vdbe.c
// sqlite3VdbeSerialGet; declined here in strict decoding: no writer stores them), N ≥ 12 even a
// BLOB of (N−12)/2 bytes, N ≥ 13 odd TEXT of (N−13)/2 bytes.
import { Unsupported, type Decoding } from './decline'

/** Serial type of a 64-character TEXT value (the three hash columns of a chain row). */
export const TEXT64_TYPE = 13 + 2 * 64

const FIXED = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0]

/**
 * Bytes a value of serial type `t` takes in the record body. The reserved types 10 and 11 (and a
 * negative type, which no varint of a real header gives) are declined in `strict` decoding and
 * answer -1 in `tolerant` decoding.
 */
export function serialSize(t: number, mode: Decoding = 'strict'): number {
  if (t >= 12) return t <= 0x7fffffff ? (t - 12) >> 1 : Math.floor((t - 12) / 2)
  if (t >= 0 && t < 10) return FIXED[t]!
  if (mode === 'strict') throw new Unsupported(`reserved serial type ${t}`)
  return -1
}

/** Whether serial type `t` holds an integer (1–6, 8, 9). */
export const isIntType = (t: number): boolean => (t >= 1 && t <= 6) || t === 8 || t === 9

/** Whether serial type `t` holds TEXT. */
export const isTextType = (t: number): boolean => t >= 13 && (t & 1) === 1

/** A signed big-endian integer of serial type 1–6, 8 or 9 as a BigInt. */
export function readIntBig(buf: Uint8Array, off: number, t: number): bigint {
  if (t === 8) return 0n
  if (t === 9) return 1n
  if (t === 6) return (buf as Buffer).readBigInt64BE(off)
  const n = serialSize(t)
  let v = 0n
  for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(buf[off + i]!)
  return BigInt.asIntN(n * 8, v)
}

/** Tolerant readIntBig: null for a serial type that is not an integer's. */
export function intOfType(buf: Uint8Array, off: number, t: number): bigint | null {
  return isIntType(t) ? readIntBig(buf, off, t) : null
}

/** A signed big-endian integer of serial type 1–6, 8 or 9 as a JS number (as better-sqlite3 returns it). */
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
