// The live chain as recovery asks about it: the row at a seq (the chain's row source: the leaf the
// divider keys name, one page read, when it holds the row; else, once, every leaf's rowids, since a
// missing row is confirmed over the rows and never by the keys), and, only when a recovered row
// cannot be placed otherwise, every row's hmac_hash and prev_hash in one pass.
import type { DirectChain } from '../chain/direct/open'
import { leafFor } from '../chain/direct/btree'
import { cellCount, cellRowid, headerOffset } from '../chain/sqlite/page'
import { RowScanner } from '../chain/direct/scan'
import { DirectSource } from '../chain/source/direct-source'
import { sequenceOf } from '../chain/source/sequence'

export interface LiveRow {
  canonical: string | null
  prev: string | null
  hmac: string | null
}

export interface LiveIndex {
  byHmac: Map<string, bigint>
  byPrev: Map<string, bigint>
}

export interface LiveChain {
  /** The live row with this seq, if there is one. */
  row(seq: bigint): LiveRow | undefined
  /** The table leaf page that holds the live row with this seq (null when there is none). */
  pageOf(seq: bigint): number | null
  readonly first: bigint | null
  readonly last: bigint | null
  /** Every live row's hmac_hash and prev_hash → its seq (one pass over the chain; built once). */
  index(): LiveIndex
  /** Whether index() has been built (links are then looked up in it). */
  readonly indexed: boolean
  /** The chain's sqlite_sequence value (the largest seq a commit ever gave it), null when none. */
  sequence(): bigint | null
  close(): void
}

/**
 * The rowid of the first or last cell of the table (empty leaves skipped), read from the cell's
 * varints alone: decoding the cell would assemble its whole payload (a 50 MB body, say).
 */
function edgeRowid(scanner: RowScanner, chain: DirectChain, edge: 'first' | 'last'): bigint | null {
  const pages = chain.leaves.pages
  for (let k = 0; k < pages.length; k++) {
    const n = pages[edge === 'first' ? k : pages.length - 1 - k]!
    const page = scanner.pager.page(n)
    const h = headerOffset(n)
    const cells = cellCount(page, n, chain.spec.pageSize, chain.root, 'tolerant')
    if (cells === 0) continue
    return cellRowid(page, page.readUInt16BE(h + 8 + 2 * (edge === 'first' ? 0 : cells - 1)))
  }
  return null
}

/** The live chain of a file opened by the direct reader. */
export function directLive(chain: DirectChain): LiveChain {
  const scanner = new RowScanner({
    spec: chain.spec,
    reserved: chain.reserved,
    ncols: chain.ncols,
    seqColumn: chain.seqColumn,
    columns: chain.columns,
    leaves: chain.leaves,
  })
  const ch = scanner.col('canonical_hash')
  const prev = scanner.col('prev_hash')
  const mac = scanner.col('hmac_hash')
  const source = DirectSource.of(chain)
  const cache = new Map<bigint, LiveRow | null>()
  const leaves = chain.leaves.pages.length
  const first = edgeRowid(scanner, chain, 'first')
  const last = edgeRowid(scanner, chain, 'last')
  let index: LiveIndex | null = null
  let sequence: bigint | null | undefined
  return {
    row(seq) {
      const hit = cache.get(seq)
      if (hit !== undefined) return hit ?? undefined
      let row: LiveRow | null = null
      source.find(seq, (c) => {
        row = { canonical: c.text(ch), prev: c.text(prev), hmac: c.text(mac) }
      })
      cache.set(seq, row)
      return row ?? undefined
    },
    pageOf(seq) {
      if (!this.row(seq)) return null
      return chain.leaves.pages[leafFor(chain.leaves, seq)] ?? null
    },
    first,
    last,
    get indexed() {
      return index !== null
    },
    sequence() {
      if (sequence === undefined) sequence = sequenceOf(source)
      return sequence
    },
    index() {
      if (index) return index
      const byHmac = new Map<string, bigint>()
      const byPrev = new Map<string, bigint>()
      scanner.scan(0, leaves, (c) => {
        const seq = c.rowidBig ?? BigInt(c.rowid)
        const h = c.text(mac)
        const p = c.text(prev)
        if (h !== null) byHmac.set(h, seq)
        if (p !== null) byPrev.set(p, seq)
      })
      index = { byHmac, byPrev }
      return index
    },
    close() {
      source.close()
      scanner.close()
    },
  }
}
