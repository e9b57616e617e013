// The freelist (https://www.sqlite.org/fileformat2.html §1.5 "The Freelist"): page 1 names the first
// trunk page and the number of free pages (./header.ts freelistHead); each trunk page holds the next
// trunk's number, a count L, and L leaf page numbers. Only recovery reads it (the direct reader never
// reads free pages), so it is decoded tolerantly: a cycle, an absurd count or a page out of range ends
// the walk there rather than failing.
import { freelistHead } from './header'

export interface Freelist {
  /** Trunk page → bytes at its start that the trunk list overwrote (8 + 4·L). */
  trunks: Map<number, number>
  leaves: Set<number>
}

/** Tolerant: the freelist as page 1 of `view` describes it, in a file of `dbPages` pages. */
export function readFreelist(
  view: (n: number) => Buffer | null,
  pageSize: number,
  dbPages: number,
): Freelist {
  const trunks = new Map<number, number>()
  const leaves = new Set<number>()
  const first = view(1)
  if (!first) return { trunks, leaves }
  const head = freelistHead(first)
  let next = head.first
  // A trunk holds at most usable/4 − 2 leaves; the whole page size bounds it here (a larger count is
  // read as an overwritten trunk).
  const perTrunk = pageSize / 4 - 2
  while (next !== 0 && next <= dbPages && !trunks.has(next) && trunks.size + leaves.size < head.count + 1) {
    const page = view(next)
    if (!page) break
    const count = page.readUInt32BE(4)
    if (count > perTrunk) {
      trunks.set(next, 8)
      break
    }
    trunks.set(next, 8 + 4 * count)
    for (let i = 0; i < count; i++) {
      const leaf = page.readUInt32BE(8 + 4 * i)
      if (leaf >= 1 && leaf <= dbPages) leaves.add(leaf)
    }
    next = page.readUInt32BE(0)
  }
  for (const t of trunks.keys()) leaves.delete(t)
  return { trunks, leaves }
}
