// What the UI asks of an opened chain: the overview, pages of entries, one entry, the timeline.
import type {
  ChainOverview,
  EntryDetail,
  EntryFilter,
  EntryPage,
  EntrySort,
  EntrySummary,
  Timeline,
  TimelineRequest,
} from '../../shared/chain-types'
import { LIST_TEXT_UNITS, type ClippedField } from '../../shared/chain-types'
import { AuditError, asChainReadError } from '../base/errors'
import { attributesOf, isPlainObject, modelOf, parseBody, providerOfBytes } from './body'
import { providerLabel } from './provider-key'
import { positionOfSeq, type ChainIndex } from './chain-index'
import type { FileFacts, RowSource } from './source/row-source'
import { nsToIso } from './ns-time'
import type { ChainColumn } from './table'
import { halves, TsWords } from './ts-words'
import { text } from './text-value'
import { bodyFields } from './entry-fields'
import { deltaNs, previousIn } from './listing-delta'
import { timelineRowTest } from './timeline-filter'
import { overviewNames } from './name-counts'
import { clipText } from './clip-text'
import { foldProviders } from './timeline-providers'

export { nsToIso }

/** What the overview says of the file itself (the evidence block, its columns, its journal mode). */
export interface OverviewMeta {
  evidence: ChainOverview['evidence']
  columns: string[]
  journal_mode: string
}

/** The overview's account of the file, from what its source says of it. */
export function overviewMeta(facts: FileFacts): OverviewMeta {
  return { evidence: facts.evidence, columns: facts.columns, journal_mode: facts.journalMode }
}

export function buildOverview(meta: OverviewMeta, idx: ChainIndex): ChainOverview {
  const n = idx.rows
  const { min, max } = new TsWords(idx.ts).extremes(idx.tsValid, n)
  const minTs = min < 0 ? null : idx.ts[min]!
  const maxTs = max < 0 ? null : idx.ts[max]!
  const providers = overviewNames(idx, 'provider')
  const models = overviewNames(idx, 'model')
  return {
    evidence: meta.evidence,
    entries: n,
    first_seq: n > 0 ? idx.seq[0]! : null,
    last_seq: n > 0 ? idx.seq[n - 1]! : null,
    first_timestamp_ns: minTs?.toString() ?? null,
    last_timestamp_ns: maxTs?.toString() ?? null,
    first_time: minTs === null ? null : nsToIso(minTs),
    last_time: maxTs === null ? null : nsToIso(maxTs),
    providers: providers.listed,
    models: models.listed,
    ...(providers.left ? { providers_left: providers.left } : {}),
    ...(models.left ? { models_left: models.left } : {}),
    columns: meta.columns,
    journal_mode: meta.journal_mode,
  }
}

/** Row positions matching a filter, in the requested order. Cached by the session per (filter, sort). */
export function selectPositions(
  idx: ChainIndex,
  filter: EntryFilter | undefined,
  sort: EntrySort,
  flagged: Set<number> | null,
  found: Set<number> | null = null,
): Int32Array {
  const providerId = filter?.provider !== undefined ? idx.providerNames.indexOf(filter.provider) : -2
  const modelId = filter?.model !== undefined ? idx.modelNames.indexOf(filter.model) : -2
  const from = filter?.from_ns !== undefined ? BigInt(filter.from_ns) : null
  const to = filter?.to_ns !== undefined ? BigInt(filter.to_ns) : null
  const out = new Int32Array(idx.rows)
  let k = 0
  for (let i = 0; i < idx.rows; i++) {
    if (providerId !== -2 && idx.provider[i] !== providerId) continue
    if (modelId !== -2 && idx.model[i] !== modelId) continue
    if (from !== null && (!idx.tsValid[i] || idx.ts[i]! < from)) continue
    if (to !== null && (!idx.tsValid[i] || idx.ts[i]! > to)) continue
    if (filter?.flagged_only && !flagged?.has(idx.seq[i]!)) continue
    if (filter?.search_id !== undefined && !found?.has(idx.seq[i]!)) continue
    out[k++] = i
  }
  const sel = out.slice(0, k)
  if (sort === 'seq_desc') sel.reverse()
  else if (sort === 'time_asc' || sort === 'time_desc') {
    const dir = sort === 'time_asc' ? 1 : -1
    const arr = Array.from(sel)
    arr.sort((a, b) => {
      const ta = idx.ts[a]!
      const tb = idx.ts[b]!
      return ta === tb ? dir * (a - b) : ta < tb ? -dir : dir
    })
    return Int32Array.from(arr)
  }
  return sel
}

/** A chain row for the entries table (column order of the reference schema; absent columns null). */
export type RawEntry = [
  bigint,
  unknown,
  unknown,
  unknown,
  unknown,
  unknown,
  Buffer | null,
  unknown,
  unknown,
  unknown,
  unknown,
]

export { text }

/** Entry rows by seq (missing seqs absent). */
export type EntryRows = (seqs: number[]) => Map<number, RawEntry>

// Positions in these lists are the positions in each row the reader hands back (r[1] … r[10]).
const HEAD = [
  'timestamp_ns',
  'trace_id',
  'span_id',
  'span_name',
  'span_kind',
] as const satisfies readonly ChainColumn[]
const TAIL = [
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
  'semantic_body_hash',
] as const satisfies readonly ChainColumn[]
const ENTRY_COLUMNS = [...HEAD, 'canonical_body', ...TAIL]

/**
 * Entry rows read through a source: integers as BigInt, TEXT as strings, BLOBs as Buffers, the
 * body as its bytes, absent columns as null. `after`: a check once the rows are read (a staged
 * open's in-place rows: the evidence must not have moved).
 */
export function sourceEntryRows(source: RowSource, after?: () => void): EntryRows {
  return (seqs) => {
    const out = new Map<number, RawEntry>()
    const head = HEAD.map((n) => source.col(n))
    const tail = TAIL.map((n) => source.col(n))
    const body = source.col('canonical_body')
    for (const seq of [...new Set(seqs)].sort((a, b) => a - b)) {
      source.find(
        BigInt(seq),
        (c) => {
          // Copied: a direct row's values are views into a page buffer the next read reuses.
          const value = (i: number): unknown => {
            if (i < 0) return null
            const v = c.valueBig(i)
            return Buffer.isBuffer(v) ? Buffer.from(v) : v
          }
          const blob = c.castBlob(body)
          const [ts, trace, span, name, kind] = head.map(value)
          const [hash, prev, hmac, semantic] = tail.map(value)
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
        },
        ENTRY_COLUMNS,
      )
    }
    after?.()
    return out
  }
}

function summarize(r: RawEntry, parsed: unknown): EntrySummary {
  const ts = typeof r[1] === 'bigint' ? r[1] : null
  const body = r[6] ?? Buffer.alloc(0)
  const f = bodyFields(parsed)
  return {
    seq: Number(r[0]),
    timestamp_ns: ts === null ? String(text(r[1])) : ts.toString(),
    time: ts === null ? '(not an integer)' : nsToIso(ts),
    span_name: text(r[4]) ?? '',
    span_kind: text(r[5]),
    provider: providerLabel(providerOfBytes(body, parsed)),
    model: modelOf(parsed),
    canonical_hash: text(r[7]) ?? '',
    has_replay: body.indexOf('"bijotel.replay.output_hash"') >= 0,
    hmac_hash: text(r[9]) ?? '',
    input_tokens: f.input_tokens,
    output_tokens: f.output_tokens,
    cost_usd: f.cost_usd,
    latency_ns: f.latency_ns === null ? null : f.latency_ns.toString(),
    status: f.status,
  }
}

const CLIPPABLE: readonly ClippedField[] = [
  'timestamp_ns',
  'span_name',
  'span_kind',
  'provider',
  'model',
  'canonical_hash',
  'hmac_hash',
  'status',
]

/**
 * `row` with each text field longer than LIST_TEXT_UNITS cut there (not inside a surrogate pair)
 * and named in `clipped`: a page of the table is up to 1,000 rows, and a chain's names (its
 * writer's, an insider's) may be megabytes each — a page carried them whole over IPC or HTTP for
 * cells a few words wide. The entry's detail (getEntry) has them whole. (The reference route
 * GET /chain lists whole values, as Python's does.)
 */
export function clippedForList(row: EntrySummary): EntrySummary {
  let clipped: ClippedField[] | undefined
  for (const k of CLIPPABLE) {
    const v = row[k]
    if (typeof v !== 'string' || v.length <= LIST_TEXT_UNITS) continue
    ;(row as unknown as Record<ClippedField, string>)[k] = clipText(v)
    ;(clipped ??= []).push(k)
  }
  if (clipped) row.clipped = clipped
  return row
}

/**
 * A page of the listing `positions`. `seqOrder`: the same listing in seq order, for each row's
 * delta to the row before it (absent: no delta is given).
 */
export function listEntries(
  rowsBySeq: EntryRows,
  positions: Int32Array,
  idx: ChainIndex,
  offset: number,
  limit: number,
  seqOrder?: Int32Array,
): EntryPage {
  const start = Math.max(0, Math.min(offset, positions.length))
  const end = Math.min(positions.length, start + Math.max(0, Math.min(limit, 1000)))
  const seqs: number[] = []
  for (let i = start; i < end; i++) seqs.push(idx.seq[positions[i]!]!)
  if (seqs.length === 0) return { total: positions.length, offset: start, rows: [] }
  try {
    const bySeq = rowsBySeq(seqs)
    const out: EntrySummary[] = []
    for (let i = start; i < end; i++) {
      const pos = positions[i]!
      const r = bySeq.get(idx.seq[pos]!)
      if (!r) continue
      const row = summarize(r, parseBody(r[6] ?? Buffer.alloc(0)))
      if (seqOrder) row.delta_ns = deltaNs(idx, pos, previousIn(seqOrder, pos))?.toString() ?? null
      out.push(row)
    }
    return { total: positions.length, offset: start, rows: out }
  } catch (e) {
    throw asChainReadError(e, 'listing entries')
  }
}

const MAX_BODY_TEXT = 256 * 1024

export function getEntry(rowsBySeq: EntryRows, idx: ChainIndex, seq: number): EntryDetail {
  let r: RawEntry | undefined
  try {
    r = rowsBySeq([seq]).get(seq)
  } catch (e) {
    throw asChainReadError(e, `reading seq ${seq}`)
  }
  if (!r) throw new AuditError('not_found', `chain entry seq=${seq} not found`)
  const body = r[6] ?? Buffer.alloc(0)
  const parsed = parseBody(body)
  const pos = positionOfSeq(idx, seq)
  const attrs = attributesOf(parsed)
  const replay: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(attrs)) if (k.startsWith('bijotel.replay.')) replay[k] = v
  let pretty: string | null = null
  let bodyError: string | null = null
  if (parsed === undefined) bodyError = 'body is not UTF-8 JSON'
  else if (body.length <= 8 * 1024 * 1024) pretty = JSON.stringify(parsed, null, 2)
  else bodyError = `body is ${body.length} bytes; too large to pretty-print`
  return {
    ...summarize(r, parsed),
    trace_id: text(r[2]),
    span_id: text(r[3]),
    prev_hash: text(r[8]) ?? '',
    hmac_hash: text(r[9]) ?? '',
    semantic_body_hash: text(r[10]),
    body_bytes: body.length,
    body_pretty: pretty,
    body_text: pretty === null ? body.subarray(0, MAX_BODY_TEXT).toString('utf8') : null,
    body_error:
      bodyError ??
      (isPlainObject(parsed) ? null : parsed === undefined ? bodyError : 'body is JSON but not an object'),
    prev_seq: pos !== null && pos > 0 ? idx.seq[pos - 1]! : null,
    next_seq: pos !== null && pos + 1 < idx.rows ? idx.seq[pos + 1]! : null,
    replay: Object.keys(replay).length > 0 ? replay : null,
  }
}

/** Bucket × provider counters a timeline keeps in a typed array (16 MB); beyond, in a Map. */
const DENSE_COUNTS = 1 << 21

/**
 * `flagged`: the seqs `req.flagged_only` keeps (rows inside a finding or an anomaly); `found`: the
 * seqs of the search `req.search_id` names.
 */
export function buildTimeline(
  idx: ChainIndex,
  req: TimelineRequest,
  flagged: Set<number> | null = null,
  found: Set<number> | null = null,
): Timeline {
  const buckets = Math.max(1, Math.min(2000, Math.floor(req.buckets)))
  const passes = timelineRowTest(idx, req, flagged, found)
  let lo: bigint | null = req.from_ns !== undefined ? BigInt(req.from_ns) : null
  let hi: bigint | null = req.to_ns !== undefined ? BigInt(req.to_ns) : null
  const words = new TsWords(idx.ts)
  if (lo === null || hi === null) {
    const { min, max } = words.extremes(idx.tsValid, idx.rows)
    if (lo === null && min >= 0) lo = idx.ts[min]!
    if (hi === null && max >= 0) hi = idx.ts[max]!
  }
  if (lo === null || hi === null || hi < lo) {
    return { from_ns: '0', to_ns: '0', bucket_ns: '0', buckets: [], providers: [] }
  }
  const span = hi - lo + 1n
  const width = (span + BigInt(buckets) - 1n) / BigInt(buckets)
  // Bucket k starts at lo + k * width. A row's bucket is computed from its distance to lo in doubles
  // (exact while the span is below 2^53 ns, 104 days; a bucket off at most beyond), then moved to
  // the exact one by comparing its halves with the starts' (a start beyond hi is above every row).
  const startHi = new Float64Array(buckets)
  const startLo = new Float64Array(buckets)
  for (let k = 0; k < buckets; k++) {
    const start = lo + width * BigInt(k)
    ;[startHi[k], startLo[k]] = start > hi ? [Infinity, 0] : halves(start)
  }
  const [loHi, loLo] = halves(lo)
  const [hiHi, hiLo] = halves(hi)
  const widthD = Number(width)
  // Counts per bucket and provider keyed bucket * names + provider: in a typed array while that is
  // small (no Map or Set touched per row), else in one Map (ids go up to 65,535, buckets to 2,000).
  const names = idx.providerNames.length
  const dense = buckets * names <= DENSE_COUNTS ? new Float64Array(buckets * names) : null
  const sparse = dense === null ? new Map<number, number>() : null
  for (let i = 0; i < idx.rows; i++) {
    if (!idx.tsValid[i]) continue
    if (words.below(i, loHi, loLo) || words.above(i, hiHi, hiLo)) continue
    if (!passes(i)) continue
    let b = Math.min(buckets - 1, Math.max(0, Math.floor(words.offset(i, loHi, loLo) / widthD)))
    while (b > 0 && words.below(i, startHi[b]!, startLo[b]!)) b--
    while (b < buckets - 1 && !words.below(i, startHi[b + 1]!, startLo[b + 1]!)) b++
    const key = b * names + idx.provider[i]!
    if (dense !== null) dense[key]!++
    else sparse!.set(key, (sparse!.get(key) ?? 0) + 1)
  }
  const counts = new Float64Array(buckets)
  const totals = new Float64Array(names)
  const sparseSorted = sparse === null ? null : [...sparse].sort((x, y) => x[0] - y[0])
  const each = (f: (key: number, n: number) => void): void => {
    if (dense !== null) dense.forEach((n, key) => n > 0 && f(key, n))
    else sparseSorted!.forEach(([key, n]) => f(key, n))
  }
  each((key, n) => {
    const b = Math.floor(key / names)
    counts[b]! += n
    totals[key - b * names]! += n
  })
  // Every row stays in its bucket's count; only the kept providers are named (timeline-providers.ts).
  const fold = foldProviders(idx.providerNames, totals)
  const byProvider = Array.from({ length: buckets }, (): [string, number][] => [])
  each((key, n) => {
    const b = Math.floor(key / names)
    const k = fold.key[key - b * names]
    if (k !== null && k !== undefined) byProvider[b]!.push([k, n])
  })
  return {
    from_ns: lo.toString(),
    to_ns: hi.toString(),
    bucket_ns: width.toString(),
    providers: fold.providers,
    ...(fold.clipped.length > 0 ? { providers_clipped: fold.clipped } : {}),
    ...(fold.left ? { providers_left: fold.left } : {}),
    buckets: Array.from(counts, (c, b) => {
      const start = lo! + width * BigInt(b)
      // Keyed by the chain's provider names: an object with no prototype, so `__proto__` is a
      // member like any other (on `{}` the assignment set the prototype and its entries vanished).
      const by = Object.create(null) as Record<string, number>
      for (const [k, n] of byProvider[b]!) by[k] = n
      return {
        start_ns: start.toString(),
        end_ns: (start + width - 1n).toString(),
        count: c,
        by_provider: by,
      }
    }),
  }
}
