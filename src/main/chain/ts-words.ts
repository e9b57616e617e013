// Nanosecond timestamps of an index compared and bucketed without a BigInt per row: reading an
// element of a BigInt64Array makes a BigInt, and the overview and the timeline walk a million of
// them right after a chain opens. Each timestamp is read as its two 32-bit halves instead (the
// high one signed, the low one unsigned), which order exactly as the 64-bit value does.
import { endianness } from 'node:os'

/** Index of the high half of element i in a BigInt64Array's Int32Array view is 2 * i + HIGH. */
const HIGH = endianness() === 'LE' ? 1 : 0
const LOW = 1 - HIGH

/** Python's `ts // 1_000_000_000`: floor division (BigInt `/` truncates toward zero). */
export function epochSecond(ts: bigint): bigint {
  const q = ts / 1_000_000_000n
  return ts < 0n && q * 1_000_000_000n !== ts ? q - 1n : q
}

const hiOf = (v: bigint): number => Number(BigInt.asIntN(32, v >> 32n))
const loOf = (v: bigint): number => Number(BigInt.asUintN(32, v))

export class TsWords {
  private readonly w: Int32Array

  constructor(ts: BigInt64Array) {
    this.w = new Int32Array(ts.buffer, ts.byteOffset, ts.length * 2)
  }

  /** The signed high half of element i. */
  hi(i: number): number {
    return this.w[2 * i + HIGH]!
  }

  /** The unsigned low half of element i. */
  lo(i: number): number {
    return this.w[2 * i + LOW]! >>> 0
  }

  /** Whether element i is below the value whose halves are (hi, lo). */
  below(i: number, hi: number, lo: number): boolean {
    const h = this.w[2 * i + HIGH]!
    return h < hi || (h === hi && this.w[2 * i + LOW]! >>> 0 < lo)
  }

  /** Whether element i is above the value whose halves are (hi, lo). */
  above(i: number, hi: number, lo: number): boolean {
    const h = this.w[2 * i + HIGH]!
    return h > hi || (h === hi && this.w[2 * i + LOW]! >>> 0 > lo)
  }

  /** Element i less the value whose halves are (hi, lo), as a double: exact below 2^53. */
  offset(i: number, hi: number, lo: number): number {
    return (this.w[2 * i + HIGH]! - hi) * 4294967296 + ((this.w[2 * i + LOW]! >>> 0) - lo)
  }

  /** Positions of the smallest and the largest of the rows with valid[i] set, or -1 when none. */
  extremes(valid: Uint8Array, rows: number): { min: number; max: number } {
    let min = -1
    let max = -1
    const w = this.w
    for (let i = 0; i < rows; i++) {
      if (!valid[i]) continue
      if (min < 0) {
        min = max = i
        continue
      }
      if (this.below(i, w[2 * min + HIGH]!, w[2 * min + LOW]! >>> 0)) min = i
      else if (this.above(i, w[2 * max + HIGH]!, w[2 * max + LOW]! >>> 0)) max = i
    }
    return { min, max }
  }
}

/** A 64-bit value as the (hi, lo) halves TsWords.below compares with. */
export function halves(v: bigint): [number, number] {
  return [hiOf(v), loOf(v)]
}
