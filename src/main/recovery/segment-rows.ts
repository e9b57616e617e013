// The sealed values of an archive segment's rows, packed: hmac_hash ‖ prev_hash ‖ canonical_hash as
// 96 raw bytes a row (each a 64-character lowercase hex text, reference §3.2), looked up by binary
// search over one index per order. A segment of a million rows costs about 100 MB this way, where the
// hex texts, their concatenations in two sets and one object a row took about seven times that
// (--segment is repeatable: archives of a long-lived service add up). A row whose values are not such
// hex texts (never one a carved record or a key's HMAC can equal, but kept all the same) is kept as is.
import { firstAtLeast } from '../base/sorted'
import type { SegmentRow } from './findings'

const HASH = 32
const ROW = 3 * HASH
const HEX64 = /^[0-9a-f]{64}$/

export class SegmentRows implements Iterable<SegmentRow> {
  private buf = Buffer.alloc(ROW * 1024)
  private n = 0
  private readonly odd: SegmentRow[] = []
  private bySeal: Uint32Array | null = null
  private byPrev: Uint32Array | null = null
  /** The first four bytes of every prev_hash, sorted: most live rows are asked about and have none. */
  private prevHeads: Uint32Array | null = null

  constructor(readonly path: string) {}

  get size(): number {
    return this.n + this.odd.length
  }

  add(hmac: string, prev: string, canonical: string): void {
    if (!HEX64.test(hmac) || !HEX64.test(prev) || !HEX64.test(canonical)) {
      this.odd.push({ hmac, prev, canonical, path: this.path })
      return
    }
    if ((this.n + 1) * ROW > this.buf.length) {
      const grown = Buffer.alloc(this.buf.length * 2)
      this.buf.copy(grown, 0, 0, this.n * ROW)
      this.buf = grown
    }
    const at = this.n * ROW
    this.buf.write(hmac, at, HASH, 'hex')
    this.buf.write(prev, at + HASH, HASH, 'hex')
    this.buf.write(canonical, at + 2 * HASH, HASH, 'hex')
    this.n++
    this.bySeal = this.byPrev = this.prevHeads = null
  }

  /** Whether a row with these three values is here (`seal`: hmac ‖ prev ‖ canonical, hex). */
  has(seal: string): boolean {
    if (this.odd.some((r) => `${r.hmac}${r.prev}${r.canonical}` === seal)) return true
    if (seal.length !== 3 * 2 * HASH || !/^[0-9a-f]+$/.test(seal)) return false
    const key = Buffer.from(seal, 'hex')
    this.bySeal ??= this.sorted(0, ROW)
    return this.find(this.bySeal, key, 0, ROW) !== null
  }

  /** The rows sealed after the row whose hmac_hash is `prev`. */
  after(prev: string): SegmentRow[] {
    const out = this.odd.length > 0 ? this.odd.filter((r) => r.prev === prev) : []
    if (this.n === 0 || !HEX64.test(prev) || !this.mayFollow(parseInt(prev.slice(0, 8), 16))) return out
    const key = Buffer.from(prev, 'hex')
    this.byPrev ??= this.sorted(HASH, HASH)
    const range = this.find(this.byPrev, key, HASH, HASH)
    if (range) for (let k = range[0]; k < range[1]; k++) out.push(this.row(this.byPrev[k]!))
    return out
  }

  private mayFollow(head: number): boolean {
    if (this.prevHeads === null) {
      const heads = new Uint32Array(this.n)
      for (let i = 0; i < this.n; i++) heads[i] = this.buf.readUInt32BE(i * ROW + HASH)
      this.prevHeads = heads.sort()
    }
    const heads = this.prevHeads
    const lo = firstAtLeast(heads, head)
    return lo < heads.length && heads[lo] === head
  }

  *[Symbol.iterator](): Iterator<SegmentRow> {
    for (let i = 0; i < this.n; i++) yield this.row(i)
    yield* this.odd
  }

  private row(i: number): SegmentRow {
    const at = i * ROW
    return {
      hmac: this.buf.toString('hex', at, at + HASH),
      prev: this.buf.toString('hex', at + HASH, at + 2 * HASH),
      canonical: this.buf.toString('hex', at + 2 * HASH, at + ROW),
      path: this.path,
    }
  }

  /** Row indexes ordered by the `len` bytes at `off` of each row. */
  private sorted(off: number, len: number): Uint32Array {
    const idx = new Uint32Array(this.n)
    for (let i = 0; i < this.n; i++) idx[i] = i
    const b = this.buf
    idx.sort((x, y) => b.compare(b, y * ROW + off, y * ROW + off + len, x * ROW + off, x * ROW + off + len))
    return idx
  }

  /** The index range [lo, hi) of rows whose bytes at `off` equal `key`, or null. */
  private find(idx: Uint32Array, key: Buffer, off: number, len: number): [number, number] | null {
    const cmp = (k: number): number => key.compare(this.buf, idx[k]! * ROW + off, idx[k]! * ROW + off + len)
    let lo = 0
    let hi = idx.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cmp(mid) > 0) lo = mid + 1
      else hi = mid
    }
    if (lo >= idx.length || cmp(lo) !== 0) return null
    let end = lo + 1
    while (end < idx.length && cmp(end) === 0) end++
    return [lo, end]
  }
}
