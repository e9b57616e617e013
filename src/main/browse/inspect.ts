// `inspect` (reference §4.10): one row in full — its metadata lines, policy status and cost, the
// decoded body as `json.dumps(body, indent=2, ensure_ascii=False)`, its CAS entry — in the
// reference's layout. The reference verifies nothing; given a key, this also says whether the row
// verifies: its body against canonical_hash, its link to the row before it in the file, its HMAC
// under the candidate keys, and its unsealed columns against the sealed span body.
import { INT64_MAX, type RowSource } from '../chain/source/row-source'
import { seqOf, streamRows, valueOf } from '../chain/source/stream'
import { CHAIN_COLUMNS } from '../chain/table'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import { toBigIntOrNull } from '../chain/table'
import { pyJsonIndented } from '../python/python-json'
import { ragProvenanceLines } from './rag-provenance'
import { GENESIS_HASH, makeSealer, sha256Hex } from '../chain/seal'
import { keyInfo, type KeyMaterial } from '../chain/keys'
import {
  costText,
  policyStatus,
  pyAttributes,
  pyColumnStr,
  pyFormatTime,
  pyParseBody,
} from '../python/py-body'
import { pyTruthy } from '../python/truthy'
import { printable } from '../../shared/printable'

/** The reference schema's columns but seq. */
type Field = Exclude<(typeof CHAIN_COLUMNS)[number], 'seq'>

/**
 * One row in full, kept past the read: values as better-sqlite3 gives them with safeIntegers,
 * `canonical_body` as its bytes (`CAST(canonical_body AS BLOB)`), null for a column the table lacks.
 */
export type InspectedRow = { seq: bigint } & { [K in Field]?: unknown }

/** The row before another in the scan: its seq and its hmac_hash as the link reads it. */
type PredecessorLink = { seq: bigint; hmac: string | null }

const ALL: readonly Field[] = CHAIN_COLUMNS.filter((c): c is Field => c !== 'seq')

/**
 * The seq an ID names: all digits → that seq; otherwise the first row's (lowest seq) with that
 * span_id. `byId`, when given, is told how many rows carry the span_id (the whole table is then
 * read): the column is outside the MAC (reference §3.3), so the match is the writer's word, not the span's.
 */
async function seqNamed(src: RowSource, id: string, byId?: { rows: number }): Promise<bigint | null> {
  let seq: bigint | null = /^[0-9]+$/.test(id) ? BigInt(id) : null
  if (seq === null) {
    const span = src.col('span_id')
    await streamRows(src, { columns: ['span_id'] }, (r) => {
      if (valueOf(r, span) !== id) return
      seq ??= seqOf(r)
      if (!byId) return false
      byId.rows++
    })
  }
  // A seq no int64 holds names no row.
  return seq === null || seq > INT64_MAX ? null : seq
}

function rowAt(src: RowSource, seq: bigint): InspectedRow | null {
  let found: InspectedRow | null = null
  src.find(
    seq,
    (r) => {
      const row: InspectedRow = { seq: seqOf(r) }
      for (const f of ALL) {
        const c = src.col(f)
        // Copied: the direct reader's body is a view into a page it reuses.
        row[f] = c < 0 ? null : f === 'canonical_body' ? copied(r.castBlob(c)) : r.valueBig(c)
      }
      found = row
    },
    ALL,
  )
  return found
}

/** The row an ID names: all digits → that seq; otherwise the first row (lowest seq) with that span_id. */
export async function findRow(src: RowSource, id: string): Promise<InspectedRow | null> {
  const seq = await seqNamed(src, id)
  return seq === null ? null : rowAt(src, seq)
}

/**
 * The row an ID names and the row before it in the scan, for a check (`checkInspectedRow`). The row
 * before first: on the direct reader that lookup builds the rowid table (one pass over every leaf's
 * rowids) and the row's own lookup then seeks in it; the other way round, the row's lookup read the
 * leaves up to it and the table read them again.
 */
export async function findRowToCheck(
  src: RowSource,
  id: string,
  byId?: { rows: number },
): Promise<{ row: InspectedRow; predecessor: PredecessorLink | null } | null> {
  const seq = await seqNamed(src, id, byId)
  if (seq === null) return null
  const predecessor = predecessorOf(src, seq)
  const row = rowAt(src, seq)
  return row === null ? null : { row, predecessor }
}

function copied(b: Buffer | null): Buffer | null {
  return b === null ? null : Buffer.from(b)
}

/** The CAS entry of a semantic hash: `[first_seen_ns, ref_count]`, null when none, 'no table' without a cas table. */
export async function casEntry(
  src: RowSource,
  semanticHash: string,
): Promise<[unknown, unknown] | null | 'no table'> {
  let hit: [unknown, unknown] | null = null
  const has = src.scanTable('cas', ['body_hash', 'first_seen_ns', 'ref_count'], (v) => {
    if (hit === null && v[0] === semanticHash) hit = [v[1], v[2]]
  })
  return has ? hit : 'no table'
}

export interface RowVerification {
  body_hash_ok: boolean
  computed_hash: string
  /** How the link was checked: to the nearest earlier row, to GENESIS (seq 1), or not at all. */
  link:
    { kind: 'predecessor'; seq: bigint; ok: boolean } | { kind: 'genesis'; ok: boolean } | { kind: 'trusted' }
  /** Index of the key that reproduces the HMAC, or null. */
  key_index: number | null
  /** Unsealed columns that disagree with the sealed body; null for a body that is not a span. */
  column_mismatches: string[] | null
  verifies: boolean
}

/**
 * The row before `seq` in the scan and its hmac_hash as the link reads it (TEXT, else null, as
 * verify's pass reads it): taken from that very row. Found again by its seq, it could be another
 * row holding the same seq (a leaf may hold a rowid twice, file format §1.6), not the one before.
 */
function predecessorOf(src: RowSource, seq: bigint): PredecessorLink | null {
  const before = src.before(seq)
  return before === null
    ? null
    : { seq: before.seq, hmac: typeof before.hmac === 'string' ? before.hmac : null }
}

export async function checkInspectedRow(
  src: RowSource,
  row: InspectedRow,
  keys: KeyMaterial[],
  p: PredecessorLink | null = predecessorOf(src, row.seq),
): Promise<RowVerification> {
  const body = Buffer.isBuffer(row.canonical_body) ? row.canonical_body : Buffer.alloc(0)
  const computed = sha256Hex(body)
  const prev = row.prev_hash
  const link: RowVerification['link'] = p
    ? { kind: 'predecessor', seq: p.seq, ok: p.hmac !== null && prev === p.hmac }
    : row.seq <= 1n
      ? { kind: 'genesis', ok: prev === GENESIS_HASH }
      : { kind: 'trusted' }
  let keyIndex: number | null = null
  if (typeof prev === 'string' && typeof row.canonical_hash === 'string')
    for (const k of keys)
      if (makeSealer(k.bytes).seal(prev, row.canonical_hash) === row.hmac_hash) {
        keyIndex = k.index
        break
      }
  const fields = sealedSpanFields(body)
  const mism = fields
    ? columnMismatches(fields, toBigIntOrNull(row.timestamp_ns), row.span_name, row.span_kind, {
        span_name: src.col('span_name') >= 0,
        span_kind: src.col('span_kind') >= 0,
      })
    : null
  const bodyOk = computed === row.canonical_hash
  return {
    body_hash_ok: bodyOk,
    computed_hash: computed,
    link,
    key_index: keyIndex,
    column_mismatches: mism,
    verifies:
      bodyOk && (link.kind === 'trusted' || link.ok) && keyIndex !== null && (mism?.length ?? 0) === 0,
  }
}

/** A column's value as Python prints it, shown as data: a line break in it cannot print a line of its own. */
const shown = (v: unknown): string => printable(pyColumnStr(v))

/**
 * The reference's text of `inspect`, then (with a key) the row's verification. The writer's text
 * outside the body (columns, status, cost, RAG sources) is shown as data (shared/printable.ts); the
 * body's JSON escapes its own line breaks.
 */
export function inspectText(
  row: InspectedRow,
  cas: [unknown, unknown] | null | 'no table',
  check: { result: RowVerification; keys: KeyMaterial[]; byId?: { rows: number } } | null,
): string {
  const label = (k: string): string => `${k}:`.padEnd(21)
  const sem = row.semantic_body_hash
  const lines = [
    '=== Span Metadata ===',
    `${label('seq')}${row.seq}`,
    `${label('timestamp')}${pyFormatTime(row.timestamp_ns)}`,
    ...(['trace_id', 'span_id', 'span_name', 'span_kind', 'canonical_hash'] as const).map(
      (k) => `${label(k)}${shown(row[k])}`,
    ),
    `${label('semantic_body_hash')}${sem === null || sem === undefined || sem === '' ? '(none)' : shown(sem)}`,
    `${label('prev_hash')}${shown(row.prev_hash)}`,
    `${label('hmac_hash')}${shown(row.hmac_hash)}`,
  ]
  const body = pyParseBody(Buffer.isBuffer(row.canonical_body) ? row.canonical_body : null)
  const attrs = pyAttributes(body)
  lines.push(
    '',
    `=== Status: ${printable(policyStatus(attrs))} ===`,
    `Cost (real): ${printable(costText(attrs))}`,
  )
  lines.push(...ragProvenanceLines(attrs).map((l) => printable(l)))
  lines.push('', '=== Canonical Body (decoded) ===', pyJsonIndented(body, { ascii: false }))
  if (typeof sem === 'string' && pyTruthy(sem)) {
    if (Array.isArray(cas)) {
      lines.push(
        '',
        '=== CAS Entry ===',
        `body_hash:     ${printable(sem)}`,
        `first_seen:    ${pyFormatTime(cas[0])}`,
        `ref_count:     ${shown(cas[1])}`,
      )
    } else if (cas === 'no table') lines.push('', '=== CAS: table not present ===')
    else lines.push('', '=== CAS: no entry (no semantic_body_hash) ===')
  }
  if (check) lines.push('', ...verificationLines(check.result, check.keys, idLines(row, check.byId)))
  return lines.join('\n') + '\n'
}

function verificationLines(v: RowVerification, keys: KeyMaterial[], ids: string[]): string[] {
  const l = v.link
  const link =
    l.kind === 'predecessor'
      ? l.ok
        ? `OK (prev_hash is the hmac_hash of seq ${l.seq}, the row before it)`
        : `BROKEN (prev_hash is not the hmac_hash of seq ${l.seq}, the row before it)`
      : l.kind === 'genesis'
        ? l.ok
          ? 'OK (first row: prev_hash is GENESIS)'
          : 'BROKEN (first row: prev_hash is not GENESIS)'
        : 'NOT CHECKED (no earlier row in this file: the stored prev_hash is trusted as the boundary)'
  const k = keys.find((x) => x.index === v.key_index)
  const ki = k ? keyInfo(k) : null
  const mac = ki
    ? `OK under key #${ki.index + 1} (${ki.encoding}, ${ki.bytes} bytes, fingerprint ${ki.fingerprint})`
    : `MISMATCH under every candidate key (${keys.length})`
  const cols =
    v.column_mismatches === null
      ? 'n/a (the body is not a span)'
      : v.column_mismatches.length === 0
        ? 'OK (timestamp_ns, span_name, span_kind agree with the sealed body)'
        : `MISMATCH (${v.column_mismatches.join(', ')} disagree with the sealed body)`
  return [
    '=== Verification (with the candidate keys given) ===',
    `body hash:  ${v.body_hash_ok ? 'OK' : `MISMATCH (the body hashes to ${v.computed_hash.slice(0, 16)}...)`}`,
    `link:       ${link}`,
    `hmac:       ${mac}`,
    `columns:    ${cols}`,
    ...ids,
    v.verifies ? 'Row VERIFIES.' : 'Row does NOT verify.',
  ]
}

/**
 * What the verification does not cover: trace_id and span_id are outside the MAC (reference §3.3), so
 * a row found by its span_id is the row whose column says so, not proven the span's; a VERIFIES
 * above is about this row's body, never about which span it is.
 */
function idLines(row: InspectedRow, byId: { rows: number } | undefined): string[] {
  const line = 'ids:        NOT SEALED (trace_id and span_id are outside the MAC: nothing proves them)'
  if (!byId) return [line]
  const others = byId.rows - 1
  return [
    line,
    `            found by span_id ${shown(row.span_id)}: the first of ${byId.rows} row${byId.rows === 1 ? '' : 's'} ` +
      `carrying it${others > 0 ? ` (${others} other${others === 1 ? '' : 's'})` : ''}, a column anyone can write`,
  ]
}
