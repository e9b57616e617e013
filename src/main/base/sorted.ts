// One binary search for the sorted lists the engines keep (rowids, hash heads, seqs).

/** The position of the first element of `sorted` (ascending) that is `x` or more; its length when none is. */
export function firstAtLeast<T extends number | bigint>(sorted: ArrayLike<T>, x: T): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}
