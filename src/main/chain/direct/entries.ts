// Entry rows read in place by the direct reader: the table and the entry detail of a large chain
// while a staged open is still making the verified copy. The same tuples as views.ts's SQL query
// (integers as BigInt, TEXT as strings, BLOBs as Buffers, absent columns as null).
import type { EntryRows, RawEntry } from '../views'
import type { CellReader } from './btree'
import { RowScanner, type DirectChainLayout } from './scan'

const COLUMNS = ['timestamp_ns', 'trace_id', 'span_id', 'span_name', 'span_kind'] as const
const TAIL = ['canonical_hash', 'prev_hash', 'hmac_hash', 'semantic_body_hash'] as const

export function directEntryRows(layout: DirectChainLayout): EntryRows {
  return (seqs) => {
    const out = new Map<number, RawEntry>()
    const scanner = new RowScanner(layout)
    try {
      const head = COLUMNS.map((n) => scanner.col(n))
      const tail = TAIL.map((n) => scanner.col(n))
      const body = scanner.col('canonical_body')
      // Copied: values are views into a page buffer the next read reuses.
      const value = (c: CellReader, i: number): unknown => {
        if (i < 0) return null
        const v = c.valueBig(i)
        return Buffer.isBuffer(v) ? Buffer.from(v) : v
      }
      for (const seq of [...new Set(seqs)].sort((a, b) => a - b)) {
        scanner.find(BigInt(seq), (c) => {
          const blob = body < 0 ? null : c.castBlob(body)
          const [ts, trace, span, name, kind] = head.map((i) => value(c, i))
          const [hash, prev, hmac, semantic] = tail.map((i) => value(c, i))
          out.set(seq, [
            c.rowidBig ?? BigInt(c.rowid),
            ts,
            trace,
            span,
            name,
            kind,
            blob === null ? null : Buffer.from(blob),
            hash,
            prev,
            hmac,
            semantic,
          ])
        })
      }
      return out
    } finally {
      scanner.close()
    }
  }
}
