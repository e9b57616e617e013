// What the entries table's listings cost once and reuse: the positions of each (filter, sort) and
// the opened chain's table columns (../chain/columns/table-columns.ts), read in one pass the first
// time a listing sorts or filters on one of them. Forgotten when the chain changes; the positions
// also when what a filter depends on changes (a verdict's findings, an integrity run).
import type { EntrySort } from '../../shared/chain-types'
import type { ChainIndex } from '../chain/chain-index'
import type { TableColumns } from '../chain/columns/table-columns'
import type { EntryRows } from '../chain/views'

/** What the entries table reads: rows by seq, the index, and the filter's positions in an order. */
export interface EntrySource {
  rows: EntryRows
  index: ChainIndex
  /** Selected (and cached) when asked: the entry detail needs none. */
  positions(sort: EntrySort): Int32Array
}

const MAX_LISTINGS = 16

export class ListingCache {
  private positions = new Map<string, Int32Array>()
  private cols: { chain: object; done: Promise<TableColumns>; value: TableColumns | null } | null = null

  /** Forget the positions (a filter's inputs changed). */
  clear(): void {
    this.positions.clear()
  }

  /** Forget everything (the chain changed). */
  forget(): void {
    this.positions.clear()
    this.cols = null
  }

  cached(key: unknown[], select: () => Int32Array): Int32Array {
    const k = JSON.stringify(key)
    let p = this.positions.get(k)
    if (!p) {
      p = select()
      if (this.positions.size > MAX_LISTINGS) this.positions.clear()
      this.positions.set(k, p)
    }
    return p
  }

  /** The table columns of `chain`, read by `read` once (again after a failed read). */
  columns(chain: object, read: () => Promise<TableColumns>): Promise<TableColumns> {
    if (this.cols?.chain !== chain) {
      const entry: NonNullable<ListingCache['cols']> = { chain, value: null, done: read() }
      this.cols = entry
      entry.done.then(
        (v) => (entry.value = v),
        () => {
          if (this.cols === entry) this.cols = null
        },
      )
    }
    return this.cols.done
  }

  /** The table columns of `chain` when they have been read, else null. */
  built(chain: object): TableColumns | null {
    return this.cols?.chain === chain ? this.cols.value : null
  }
}
