// Search over the chain (issue 26): trace_id, span_id, span name, model, and text inside the sealed
// bodies, streamed row by row (one slice at a time, cancellable) and answered as the set of seqs
// that match. Body text is matched on the body's bytes, as typed and as JSON escapes it (a quote
// inside a string is `\"` in the body), so what the auditor reads in the entry view is found.
import type { SearchField, SearchResult } from '../../shared/tools-types'
import type { ChainIndex } from '../chain/chain-index'
import type { RowSource } from '../chain/source/row-source'
import { bytesOf, streamRows, valueOf } from '../chain/source/stream'
import { text } from '../chain/views'

export const SEARCH_FIELDS: readonly SearchField[] = ['trace_id', 'span_id', 'span_name', 'model', 'body']

export interface SearchOptions {
  query: string
  fields: readonly SearchField[]
  caseSensitive: boolean
  fromNs?: bigint
  toNs?: bigint
  signal?: { aborted: boolean }
  onProgress?: (done: number, total: number) => void
}

/** ASCII letters to lower case, in place into `out` (bytes above 0x7f untouched: UTF-8 stays valid). */
function lowerAscii(src: Uint8Array, out: Buffer): Buffer {
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!
    out[i] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c
  }
  return out.subarray(0, src.length)
}

function fold(s: string, caseSensitive: boolean): string {
  return caseSensitive ? s : s.replace(/[A-Z]+/g, (m) => m.toLowerCase())
}

/** The needles a body is searched for: the text's UTF-8 bytes, and its JSON-escaped form if other. */
function bodyNeedles(query: string, caseSensitive: boolean): Buffer[] {
  const q = fold(query, caseSensitive)
  const escaped = JSON.stringify(q).slice(1, -1)
  const out = [Buffer.from(q, 'utf8')]
  if (escaped !== q) out.push(Buffer.from(escaped, 'utf8'))
  return out
}

function inRange(ts: unknown, from: bigint | undefined, to: bigint | undefined): boolean {
  if (from === undefined && to === undefined) return true
  if (typeof ts !== 'bigint') return false
  return (from === undefined || ts >= from) && (to === undefined || ts <= to)
}

export async function searchChain(
  src: RowSource,
  idx: ChainIndex,
  opts: SearchOptions,
): Promise<Omit<SearchResult, 'search_id'>> {
  const want = new Set(opts.fields)
  const needle = fold(opts.query, opts.caseSensitive)
  const needles = bodyNeedles(opts.query, opts.caseSensitive)
  // Models match through the index's names (one test per distinct model, not per row).
  const modelHit = idx.modelNames.map((m) => fold(m, opts.caseSensitive).includes(needle))
  const columns = (['trace_id', 'span_id', 'span_name'] as const).filter((f) => want.has(f))
  let scratch = Buffer.alloc(64 * 1024)
  const byField: Partial<Record<SearchField, number>> = {}
  const hit = (f: SearchField): void => {
    byField[f] = (byField[f] ?? 0) + 1
  }
  const seqs: number[] = []
  let scanned = 0
  let pos = 0
  const ts = src.col('timestamp_ns')
  const body = src.col('canonical_body')
  const at = columns.map((c) => src.col(c))
  await streamRows(
    src,
    {
      columns: ['timestamp_ns', ...columns, ...(want.has('body') ? ['canonical_body'] : [])],
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    },
    (r) => {
      scanned++
      if (!inRange(valueOf(r, ts), opts.fromNs, opts.toNs)) return
      const seq = r.rowid
      let matched = false
      for (const [i, c] of columns.entries()) {
        const v = text(valueOf(r, at[i]!))
        if (v !== null && fold(v, opts.caseSensitive).includes(needle)) {
          hit(c)
          matched = true
        }
      }
      if (want.has('model')) {
        // Rows come in seq order, as the index holds them: walk it alongside.
        while (pos < idx.rows && idx.seq[pos]! < seq) pos++
        if (pos < idx.rows && idx.seq[pos] === seq && modelHit[idx.model[pos]!]) {
          hit('model')
          matched = true
        }
      }
      if (want.has('body')) {
        const b = bytesOf(r, body)
        if (b && b.length > 0) {
          let hay: Uint8Array = b
          if (!opts.caseSensitive) {
            if (scratch.length < b.length) scratch = Buffer.alloc(b.length * 2)
            hay = lowerAscii(b, scratch)
          }
          const buf = Buffer.from(hay.buffer, hay.byteOffset, hay.length)
          if (needles.some((n) => buf.includes(n))) {
            hit('body')
            matched = true
          }
        }
      }
      if (matched) seqs.push(seq)
    },
  )
  return {
    query: opts.query,
    fields: [...opts.fields],
    case_sensitive: opts.caseSensitive,
    scanned,
    seqs,
    by_field: byField,
  }
}
