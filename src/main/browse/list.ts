// `list` (reference §4.10): the chain newest first, filtered by blocked status, policy rule, model and
// a since-date, paginated. The reference applies LIMIT/OFFSET in SQL and the filters after it, so a
// page can come back short or empty while matching rows exist (§11.16); here every filter is
// applied first, then OFFSET and LIMIT, reading only as far back as the page needs.
import type { RowSource } from '../chain/source/row-source'
import { bytesOf, seqOf, streamRows, valueOf } from '../chain/source/stream'
import {
  costText,
  policyStatus,
  pyAttributes,
  pyFormatTime,
  pyParseBody,
  pySlice,
  pyText,
  type PolicyStatus,
} from '../python/py-body'
import { pyTruthy } from '../python/truthy'
import { printable } from '../../shared/printable'

export interface ListFilter {
  blocked?: boolean
  rule?: string
  model?: string
  /** Rows whose timestamp_ns is on or after this (as SQLite compares: text and blobs sort above). */
  sinceNs?: bigint
  /** Negative: no limit (SQLite's LIMIT -1). */
  limit: number
  /** Negative: 0 (as SQLite treats a negative OFFSET). */
  offset: number
}

export interface ListedRow {
  seq: bigint
  time: string
  trace: string
  model: string
  status: PolicyStatus
  cost: string
}

/** SQLite's `timestamp_ns >= ?` for a stored value of any type (NULL < numbers < text < blob). */
function onOrAfter(ts: unknown, since: bigint): boolean {
  if (typeof ts === 'bigint') return ts >= since
  if (typeof ts === 'number') return ts >= Number(since)
  return typeof ts === 'string' || Buffer.isBuffer(ts)
}

export async function listSpans(src: RowSource, f: ListFilter): Promise<ListedRow[]> {
  const out: ListedRow[] = []
  let skip = Math.max(0, f.offset)
  const limit = f.limit < 0 ? Infinity : f.limit
  if (limit === 0) return out
  const ts = src.col('timestamp_ns')
  const trace = src.col('trace_id')
  const body = src.col('canonical_body')
  const columns = ['timestamp_ns', 'trace_id', 'canonical_body']
  await streamRows(src, { descending: true, columns }, (r) => {
    const time = valueOf(r, ts)
    if (f.sinceNs !== undefined && !onOrAfter(time, f.sinceNs)) return
    const attrs = pyAttributes(pyParseBody(bytesOf(r, body)))
    if (f.blocked && attrs.get('bijotel.blocked') !== true) return
    if (
      f.rule !== undefined &&
      attrs.get('bijotel.policy.rule') !== f.rule &&
      attrs.get('bijotel.policy.warning') !== f.rule
    )
      return
    const model = attrs.get('gen_ai.request.model')
    if (f.model !== undefined && model !== f.model) return
    if (skip > 0) {
      skip--
      return
    }
    const shown = pyTruthy(model) ? pyText(model) : '-'
    const traceId = valueOf(r, trace)
    out.push({
      seq: seqOf(r),
      time: pyFormatTime(time),
      trace: `${pySlice(traceId === null ? 'None' : String(traceId), 16)}..`,
      model: pySlice(shown, 27),
      status: policyStatus(attrs),
      cost: costText(attrs),
    })
    return out.length < limit
  })
  return out
}

/** Python's `f"{v:<n}"`: padded with spaces to n characters (code points), never cut. */
export function padPy(v: string, n: number): string {
  const len = Array.from(v).length
  return len >= n ? v : v + ' '.repeat(n - len)
}

/** The reference's table: header, a rule of 92 dashes, a line per row, `(N spans)`. */
export function listText(rows: ListedRow[]): string {
  if (rows.length === 0) return '(no spans match filters)\n'
  // Every field is the writer's text: a line break in a model name would print a row of its own.
  const cell = (v: string, w: number): string => padPy(printable(v), w)
  const line = (a: string, b: string, c: string, d: string, e: string, g: string): string =>
    `${cell(a, 6)} ${cell(b, 22)} ${cell(c, 18)} ${cell(d, 28)} ${cell(e, 8)} ${cell(g, 10)}`
  return [
    line('seq', 'timestamp', 'trace_id', 'model', 'status', 'cost'),
    '-'.repeat(92),
    ...rows.map((r) => line(r.seq.toString(), r.time, r.trace, r.model, r.status, r.cost)),
    '',
    `(${rows.length} spans)`,
  ]
    .join('\n')
    .concat('\n')
}
