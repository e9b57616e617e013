// Following a carved record's overflow chain (file-format §1.6) in the page views a version may have
// been written against: the walks of one carving pass share a budget, so hostile files with many long
// junk chains stay linear in their pages.
import { nextOverflowPage, overflowChunk } from '../chain/sqlite/page'
import type { PageView } from './pages'
import { matchRecord, type CarvedRecord, type OverflowChain, type OverflowReader } from './record'
import type { RecordLayout } from './layout'

/** The walks of one carving pass: the largest page number, and the overflow pages they may still read. */
export interface WalkBudget {
  readonly maxPage: number
  left: number
}

/**
 * The record at anchor `a` of `page` (`usable` bytes), its overflow pages looked for in each view in
 * turn: the first in which the chain holds and the hashes at its end read as hashes.
 */
export function matchAt(
  page: Buffer,
  a: number,
  views: PageView[],
  usable: number,
  layout: RecordLayout,
  budget: WalkBudget,
): CarvedRecord | null {
  for (const view of views) {
    let used = false
    const more: OverflowReader = (p, need) => {
      used = true
      return overflowChain(view, p, need, usable, budget)
    }
    const rec = matchRecord(page, a, usable, layout, more)
    if (rec || !used) return rec
  }
  return null
}

/**
 * The overflow chain of `need` bytes from page `p` in `view` (file-format §1.6: each page starts
 * with the next page's number, then usable − 4 bytes of payload), or null where it breaks. Only the
 * pages' numbers are kept; bytes are read again when asked for.
 */
export function overflowChain(
  view: PageView,
  p: number,
  need: number,
  usable: number,
  budget: WalkBudget,
): OverflowChain | null {
  const chunk = overflowChunk(usable)
  const count = Math.ceil(need / chunk)
  // A chain visits each page once and cannot be longer than the file; all walks together read at
  // most a few times the file's pages (hostile files with many long junk chains stay linear).
  if (count > budget.maxPage || count > budget.left) return null
  const pages = new Int32Array(count)
  const seen = new Set<number>()
  for (let i = 0; i < count; i++) {
    if (p < 1 || p > budget.maxPage || seen.has(p) || --budget.left < 0) return null
    const ov = view(p)
    if (!ov) return null
    seen.add(p)
    pages[i] = p
    p = nextOverflowPage(ov)
  }
  return {
    read(from, len) {
      if (from < 0 || from + len > need) return null
      const out = Buffer.allocUnsafe(len)
      for (let got = 0; got < len;) {
        const at = from + got
        const ov = view(pages[Math.floor(at / chunk)]!)
        if (!ov) return null
        const inPage = at % chunk
        const take = Math.min(len - got, chunk - inPage)
        ov.copy(out, got, 4 + inPage, 4 + inPage + take)
        got += take
      }
      return out
    },
  }
}
