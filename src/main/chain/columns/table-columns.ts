// The entries table's sortable and filterable columns that the index (../chain-index.ts) does not
// hold: span name, kind, status, canonical hash, token counts, cost, latency. Read in one pass over
// every row the first time a listing needs one (a sort or a filter on it), then kept with the opened
// chain: sorting a page never re-reads bodies. Strings are kept as ranks (their order, 4 bytes a
// row) and, where they repeat (names, kinds, statuses), as ids for filtering; numbers as doubles
// with NaN for a missing value (JSON has no NaN, so it never stands for a value).
import { parseBody } from '../body'
import { bodyFields } from '../entry-fields'
import { positionOfSeq, type ChainIndex } from '../chain-index'
import { streamRows } from '../source/stream'
import type { RowSource } from '../source/row-source'
import { text } from '../text-value'
import { compareUtf8 } from './utf8-order'

/** A column of repeating strings: an id a row (0: no value), the names by id (index 0 unused). */
export interface StringColumn {
  ids: Uint32Array
  names: (string | null)[]
}

export interface TableColumns {
  rows: number
  span: StringColumn
  kind: StringColumn
  status: StringColumn
  /** Rank of each row's canonical_hash text in UTF-8 byte order (NaN: none). */
  hashRank: Float64Array
  inputTokens: Float64Array
  outputTokens: Float64Array
  cost: Float64Array
  /** Latency in ns as a double (NaN: missing); exact values where a double is not exact. */
  latency: Float64Array
  latencyExact: Map<number, bigint>
}

class Strings {
  readonly ids: Uint32Array
  private readonly byName = new Map<string, number>()
  readonly names: (string | null)[] = [null]
  constructor(rows: number) {
    this.ids = new Uint32Array(rows)
  }
  set(pos: number, v: string | null): void {
    if (v === null) return
    let id = this.byName.get(v)
    if (id === undefined) {
      id = this.names.length
      this.names.push(v)
      this.byName.set(v, id)
    }
    this.ids[pos] = id
  }
  column(): StringColumn {
    return { ids: this.ids, names: this.names }
  }
}

/** Rank (0, 1, … in UTF-8 byte order; equal strings equal ranks) of each row's string. */
function ranks(values: (string | undefined)[], rows: number): Float64Array {
  const out = new Float64Array(rows).fill(NaN)
  const order: number[] = []
  for (let i = 0; i < rows; i++) if (values[i] !== undefined) order.push(i)
  order.sort((a, b) => compareUtf8(values[a]!, values[b]!))
  let rank = -1
  let prev: string | undefined
  for (const i of order) {
    const v = values[i]!
    if (v !== prev) rank++
    prev = v
    out[i] = rank
  }
  return out
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER)

/** Every row's table columns, through `source` (the rows of `idx`, by seq). */
export async function buildTableColumns(
  source: RowSource,
  idx: ChainIndex,
  signal?: { aborted: boolean },
): Promise<TableColumns> {
  const rows = idx.rows
  const span = new Strings(rows)
  const kind = new Strings(rows)
  const status = new Strings(rows)
  const hashes = new Array<string | undefined>(rows)
  const inputTokens = new Float64Array(rows).fill(NaN)
  const outputTokens = new Float64Array(rows).fill(NaN)
  const cost = new Float64Array(rows).fill(NaN)
  const latency = new Float64Array(rows).fill(NaN)
  const latencyExact = new Map<number, bigint>()
  const c = {
    name: source.col('span_name'),
    kind: source.col('span_kind'),
    hash: source.col('canonical_hash'),
    body: source.col('canonical_body'),
  }
  const value = (r: Parameters<Parameters<typeof streamRows>[2]>[0], i: number): string | null =>
    i < 0 ? null : text(r.value(i))
  await streamRows(
    source,
    {
      columns: ['span_name', 'span_kind', 'canonical_hash', 'canonical_body'],
      ...(signal ? { signal } : {}),
    },
    (r) => {
      const pos = positionOfSeq(idx, r.rowid)
      if (pos === null) return
      span.set(pos, value(r, c.name))
      kind.set(pos, value(r, c.kind))
      hashes[pos] = value(r, c.hash) ?? undefined
      const f = bodyFields(parseBody(r.castBlob(c.body) ?? Buffer.alloc(0)))
      status.set(pos, f.status)
      if (f.input_tokens !== null) inputTokens[pos] = f.input_tokens
      if (f.output_tokens !== null) outputTokens[pos] = f.output_tokens
      if (f.cost_usd !== null) cost[pos] = f.cost_usd
      if (f.latency_ns !== null) {
        latency[pos] = Number(f.latency_ns)
        if (f.latency_ns > MAX_EXACT || f.latency_ns < -MAX_EXACT) latencyExact.set(pos, f.latency_ns)
      }
    },
  )
  return {
    rows,
    span: span.column(),
    kind: kind.column(),
    status: status.column(),
    hashRank: ranks(hashes, rows),
    inputTokens,
    outputTokens,
    cost,
    latency,
    latencyExact,
  }
}

/** Ranks of interned names (ids → rank in UTF-8 byte order), for provider, model and the columns above. */
export function nameRanks(names: readonly (string | null)[]): Float64Array {
  const ids = names.map((_, i) => i).filter((i) => names[i] !== null)
  ids.sort((a, b) => compareUtf8(names[a]!, names[b]!))
  const out = new Float64Array(names.length).fill(NaN)
  ids.forEach((id, rank) => (out[id] = rank))
  return out
}
