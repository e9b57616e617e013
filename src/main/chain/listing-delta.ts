// The table's time-delta column: how long after the row before it in the listing (taken in seq
// order, as Wireshark's "delta time displayed") a row's timestamp_ns is. timestamp_ns is not sealed:
// the delta says what the file holds, and a negative one is shown as it is (rows out of time order).
import type { ChainIndex } from './chain-index'

/** timestamp_ns of `pos` minus that of `prev`; null when there is no previous row or either is not an integer. */
export function deltaNs(idx: ChainIndex, pos: number, prev: number): bigint | null {
  if (prev < 0 || !idx.tsValid[pos] || !idx.tsValid[prev]) return null
  return idx.ts[pos]! - idx.ts[prev]!
}

/** The predecessor of `pos` in `seqSel` (ascending positions), by binary search; -1 when none. */
export function previousIn(seqSel: Int32Array, pos: number): number {
  let lo = 0
  let hi = seqSel.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = seqSel[mid]!
    if (v === pos) return mid > 0 ? seqSel[mid - 1]! : -1
    if (v < pos) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
