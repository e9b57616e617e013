// SQLite as the oracle of the entries table's orders and columns: each column as a SQL expression
// over the chain table (the body read as JSON with SQLite's JSON functions), and the listing as
// `ORDER BY <column>, seq` (descending: `<column> DESC, seq DESC`). Only reads: the caller opens the
// file read-only (a fixture through withSqliteCopy, never in place).
import type Database from 'better-sqlite3'
import type { EntryFilter, EntrySort } from '../../../src/shared/chain-types'

const attr = (k: string): string => `'$.attributes."${k}"'`
const num = (path: string): string =>
  `CASE WHEN json_type(t, ${path}) IN ('integer', 'real') THEN json_extract(t, ${path}) END`
const str = (path: string): string =>
  `CASE WHEN json_type(t, ${path}) = 'text' AND json_extract(t, ${path}) <> '' THEN json_extract(t, ${path}) END`
/** A span time: a JSON integer, or a string of decimal digits (the generators keep both small). */
const ns = (path: string): string =>
  `CASE WHEN json_type(t, ${path}) = 'integer' THEN json_extract(t, ${path})
        WHEN json_type(t, ${path}) = 'text' AND json_extract(t, ${path}) <> ''
             AND NOT json_extract(t, ${path}) GLOB '*[^0-9]*' THEN CAST(json_extract(t, ${path}) AS INTEGER) END`

/** Each sortable column as SQL over `r` (the chain's rows, the body as JSON text in `t`). */
export const COLUMN_SQL: Record<string, string> = {
  seq: 'seq',
  time: "CASE WHEN typeof(timestamp_ns) = 'integer' THEN timestamp_ns END",
  provider: `COALESCE(${str(attr('gen_ai.provider.name'))}, ${str(attr('gen_ai.system'))}, 'unknown')`,
  model: `COALESCE(${str(attr('gen_ai.response.model'))}, ${str(attr('gen_ai.request.model'))}, ${str(attr('bijotel.replay.model_version'))})`,
  span: 'CAST(span_name AS TEXT)',
  kind: 'CAST(span_kind AS TEXT)',
  status: "CASE WHEN json_type(t, '$.status_code') = 'text' THEN json_extract(t, '$.status_code') END",
  hash: 'CAST(canonical_hash AS TEXT)',
  input_tokens: num(attr('gen_ai.usage.input_tokens')),
  output_tokens: num(attr('gen_ai.usage.output_tokens')),
  cost: num(attr('bijotel.cost_usd')),
  latency: `${ns("'$.end_time_ns'")} - ${ns("'$.start_time_ns'")}`,
}

const ROWS = `SELECT seq, timestamp_ns, span_name, span_kind, canonical_hash,
  CASE WHEN json_valid(CAST(canonical_body AS TEXT)) THEN CAST(canonical_body AS TEXT) END AS t FROM chain`

export interface OracleRow {
  seq: number
  values: Record<string, unknown>
}

/** The listing SQLite gives: the rows the filter keeps, ordered, with every column's value. */
export function oracleListing(db: Database.Database, sort: EntrySort, filter: EntryFilter = {}): OracleRow[] {
  const at = sort.lastIndexOf('_')
  const column = sort.slice(0, at)
  const desc = sort.endsWith('_desc')
  const where: string[] = []
  const params: unknown[] = []
  const keep = (sql: string, value: string | undefined): void => {
    if (value === undefined) return
    where.push(sql)
    params.push(value)
  }
  keep(`${COLUMN_SQL['provider']} = ?`, filter.provider)
  keep('CAST(span_name AS TEXT) = ?', filter.span_name)
  keep(`${COLUMN_SQL['status']} = ?`, filter.status)
  const cols = Object.entries(COLUMN_SQL)
    .map(([k, e]) => `${e} AS "${k}"`)
    .join(', ')
  const sql = `WITH r AS (${ROWS}), v AS (SELECT ${cols} FROM r ${where.length ? 'WHERE ' + where.join(' AND ') : ''}),
    d AS (SELECT *, "time" - LAG("time") OVER (ORDER BY seq) AS delta FROM v)
    SELECT * FROM d ORDER BY "${column}" ${desc ? 'DESC' : 'ASC'}, seq ${desc ? 'DESC' : 'ASC'}`
  const stmt = db.prepare(sql).safeIntegers(true)
  return (stmt.all(...params) as Record<string, unknown>[]).map((r) => ({ seq: Number(r['seq']), values: r }))
}
