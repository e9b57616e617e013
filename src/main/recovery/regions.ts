// The free space of a b-tree page in use (file-format §1.6): the unallocated gap between the end of
// the cell pointer array and the start of the cell content area, and the chain of freeblocks
// (each: 2-byte offset of the next, 2-byte size, then the freed bytes). Fragments of 1–3 bytes can
// hold no record and are not listed.
import type { RecoverySourceKind } from '../../shared/recovery-types'

export const BTREE_TYPES = new Set([0x02, 0x05, 0x0a, 0x0d])

export interface Region {
  from: number
  to: number
  kind: RecoverySourceKind
}

/** Offset of a page's b-tree header: after the 100-byte file header on page 1. */
export const headerAt = (n: number): number => (n === 1 ? 100 : 0)

/** Whether the b-tree page at `h` in `buf` (starting at `base`) is a leaf or interior page type. */
export function isBtreePage(buf: Uint8Array, h: number): boolean {
  return BTREE_TYPES.has(buf[h]!)
}

/** The gap [from, to) of the b-tree page whose header is at `base + h`, relative to `base`; null when empty or absurd. */
export function gapOf(buf: Uint8Array, base: number, h: number, usable: number): Region | null {
  const at = base + h
  const type = buf[at]!
  const cells = (buf[at + 3]! << 8) | buf[at + 4]!
  const content = (buf[at + 5]! << 8) | buf[at + 6]! || 65536
  const from = h + (type === 0x02 || type === 0x05 ? 12 : 8) + 2 * cells
  const to = Math.min(content, usable)
  return to > from ? { from, to, kind: 'unallocated' } : null
}

/** The freeblocks of the page at `base` (header at `h`), in chain order; the walk stops at anything malformed. */
export function freeblocksOf(buf: Uint8Array, base: number, h: number, usable: number): Region[] {
  const out: Region[] = []
  let next = (buf[base + h + 1]! << 8) | buf[base + h + 2]!
  let last = 0
  // A freeblock chain is in increasing offset order (SQLite's btreeComputeFreeSpace checks the same).
  while (next !== 0 && next > last && next + 4 <= usable && out.length < usable / 4) {
    const size = (buf[base + next + 2]! << 8) | buf[base + next + 3]!
    if (size < 4 || next + size > usable) break
    out.push({ from: next, to: next + size, kind: 'freeblock' })
    last = next
    next = (buf[base + next]! << 8) | buf[base + next + 1]!
  }
  return out
}

/** Whether `region` of the page at `base` may hold a record: it contains the anchor's first byte. */
export function mayHoldRecord(buf: Buffer, base: number, region: Region, anchorByte: number): boolean {
  return buf.subarray(base + region.from, base + region.to).indexOf(anchorByte) >= 0
}
