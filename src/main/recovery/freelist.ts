// The freelist (file-format §1.5): page 1 names the first trunk page (offset 32) and the number of
// free pages (offset 36); each trunk page holds the next trunk's number, a count L, and L leaf page
// numbers. Freed pages keep their old bytes (unless secure_delete was on): a leaf page is carved
// whole, a trunk page from the end of its list on.
import type { PageView } from './pages'

export interface Freelist {
  /** Trunk page → bytes at its start that the trunk list overwrote (8 + 4·L). */
  trunks: Map<number, number>
  leaves: Set<number>
}

/** The freelist as page 1 of `view` describes it; a cycle or an absurd count ends the walk there. */
export function readFreelist(view: PageView, pageSize: number, dbPages: number): Freelist {
  const trunks = new Map<number, number>()
  const leaves = new Set<number>()
  const first = view(1)
  if (!first) return { trunks, leaves }
  let next = first.readUInt32BE(32)
  const total = first.readUInt32BE(36)
  const perTrunk = pageSize / 4 - 2
  while (next !== 0 && next <= dbPages && !trunks.has(next) && trunks.size + leaves.size < total + 1) {
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
