// The free space of a b-tree page in use (file-format §1.6): the unallocated gap between the end of
// the cell pointer array and the start of the cell content area, and the chain of freeblocks. The
// page structure is read by the one format module (../chain/sqlite/page.ts), tolerantly; this file
// names each range for the report. Fragments of 1–3 bytes can hold no record and are not listed.
import type { RecoverySourceKind } from '../../shared/recovery-types'
import { cellGap, freeblocks } from '../chain/sqlite/page'

export interface Region {
  from: number
  to: number
  kind: RecoverySourceKind
}

/** The gap [from, to) of the b-tree page whose header is at `base + h`, relative to `base`; null when empty or absurd. */
export function gapOf(buf: Uint8Array, base: number, h: number, usable: number): Region | null {
  const gap = cellGap(buf, base, h, usable)
  return gap && { ...gap, kind: 'unallocated' }
}

/** The freeblocks of the page at `base` (header at `h`), in chain order; the walk stops at anything malformed. */
export function freeblocksOf(buf: Uint8Array, base: number, h: number, usable: number): Region[] {
  return freeblocks(buf, base, h, usable).map((f) => ({ ...f, kind: 'freeblock' }))
}

/** Whether `region` of the page at `base` may hold a record: it contains the anchor's first byte. */
export function mayHoldRecord(buf: Buffer, base: number, region: Region, anchorByte: number): boolean {
  return buf.subarray(base + region.from, base + region.to).indexOf(anchorByte) >= 0
}
