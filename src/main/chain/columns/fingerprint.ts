// The integrity monitor's duplicate-hash detector (reference §5.3.3) compares canonical_hash values
// with Python's equality; over a million rows it compares 52-bit fingerprints of those keys first
// and re-reads only the rows whose fingerprints collide.
import type { ChainRow } from '../source/row-source'

/**
 * canonical_hash as a dictionary key with Python's equality (text, bytes and numbers never equal
 * one another; 5 == 5.0), or null when Python would skip it (`if not h`: NULL, '', b'', 0).
 */
export function hashKey(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v === '' ? null : `s:${v}`
  if (Buffer.isBuffer(v) || v instanceof Uint8Array)
    return v.length === 0 ? null : `b:${Buffer.from(v).toString('hex')}`
  if (typeof v === 'bigint') return v === 0n ? null : `n:${v}`
  if (typeof v === 'number') {
    if (v === 0) return null
    return Number.isInteger(v) ? `n:${BigInt(v)}` : `n:${v}`
  }
  return `s:${String(v)}`
}

const P_A = 0x01000193
const P_B = 0x5bd1e995
const SEED_A = 0x811c9dc5
const SEED_B = 0x01000193
/** The lanes after the first two code units of every text key, "s:" (see hashKey). */
const TEXT_A = Math.imul(Math.imul(SEED_A ^ 0x73, P_A) ^ 0x3a, P_A)
const TEXT_B = Math.imul(Math.imul(SEED_B ^ 0x73, P_B) ^ 0x3a, P_B)

const fold = (a: number, b: number): number => (a >>> 0) * 1048576 + ((b >>> 12) & 0xfffff)

/**
 * FNV-1a-style in two lanes, folded to 52 bits (exact in a double); collisions are re-checked
 * exactly. The first two code units one at a time, then four per step (a hash key is 66 units long
 * and this runs for every row of `integrity --all`), then the rest one at a time.
 */
export function fingerprint(key: string): number {
  let a = SEED_A
  let b = SEED_B
  const n = key.length
  let i = 0
  for (; i < n && i < 2; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, P_A)
    b = Math.imul(b ^ c, P_B)
  }
  for (; i + 4 <= n; i += 4) {
    const w =
      key.charCodeAt(i) |
      (key.charCodeAt(i + 1) << 8) |
      (key.charCodeAt(i + 2) << 16) |
      (key.charCodeAt(i + 3) << 24)
    a = Math.imul(a ^ w, P_A)
    b = Math.imul(b ^ w, P_B)
  }
  for (; i < n; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, P_A)
    b = Math.imul(b ^ c, P_B)
  }
  return fold(a, b)
}

/** `fingerprint(hashKey(value))` of a row's column; straight from the record's bytes for ASCII text. */
export function hashFingerprint(row: ChainRow, col: number): number {
  const rec = row.record
  const t = rec === null ? 0 : rec.types[col]!
  if (rec !== null && t >= 15 && (t & 1) === 1) {
    // Non-empty TEXT (serial type ≥ 13, odd: file format §2.1): the key is "s:" + text; for ASCII
    // bytes, bytes and UTF-16 code units agree.
    const o = rec.offs[col]!
    const e = o + ((t - 13) >> 1)
    const buf = rec.buf
    let a = TEXT_A
    let b = TEXT_B
    let high = 0
    let i = o
    for (; i + 4 <= e; i += 4) {
      const b0 = buf[i]!
      const b1 = buf[i + 1]!
      const b2 = buf[i + 2]!
      const b3 = buf[i + 3]!
      high |= b0 | b1 | b2 | b3
      const w = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)
      a = Math.imul(a ^ w, P_A)
      b = Math.imul(b ^ w, P_B)
    }
    for (; i < e; i++) {
      const ch = buf[i]!
      high |= ch
      a = Math.imul(a ^ ch, P_A)
      b = Math.imul(b ^ ch, P_B)
    }
    if (high <= 0x7f) return fold(a, b)
  }
  const key = hashKey(row.valueBig(col))
  return key === null ? NaN : fingerprint(key)
}
