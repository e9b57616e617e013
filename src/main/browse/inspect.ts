// `inspect` (reference §4.10): one row in full — its metadata lines, policy status and cost, the
// decoded body as `json.dumps(body, indent=2, ensure_ascii=False)`, its CAS entry — in the
// reference's layout. The reference verifies nothing; given a key, this also says whether the row
// verifies: its body against canonical_hash, its link to the row before it in the file, its HMAC
// under the candidate keys, and its unsealed columns against the sealed span body.
import type { ChainRow, RowField, RowSource } from '../chain/row-stream'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import { toBigIntOrNull } from '../chain/table'
import { pyJsonIndented } from '../export/python-json'
import { GENESIS_HASH, makeSealer, sha256Hex } from '../chain/seal'
import { keyInfo, type KeyMaterial } from '../verify/secrets'
import {
  costText,
  policyStatus,
  pyAttributes,
  pyColumnStr,
  pyFormatTime,
  pyParseBody,
  pyTruthy,
} from './py-body'

const ALL: readonly RowField[] = [
  'timestamp_ns',
  'trace_id',
  'span_id',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
  'semantic_body_hash',
]

/** The row an ID names: all digits → that seq; otherwise the first row (lowest seq) with that span_id. */
export async function findRow(src: RowSource, id: string): Promise<ChainRow | null> {
  let seq: bigint | null = /^[0-9]+$/.test(id) ? BigInt(id) : null
  if (seq === null) {
    await src.scan({ fields: ['span_id'] }, (r) => {
      if (r.span_id !== id) return
      seq = r.seq
      return false
    })
  }
  if (seq === null) return null
  let found: ChainRow | null = null
  await src.scan({ from: seq, to: seq, fields: ALL }, (r) => {
    // Copied: the direct reader's body is a view into a page it reuses.
    found = {
      ...r,
      canonical_body: Buffer.isBuffer(r.canonical_body) ? Buffer.from(r.canonical_body) : r.canonical_body,
    }
    return false
  })
  return found
}

/** The CAS entry of a semantic hash: `[first_seen_ns, ref_count]`, null when none, 'no table' without a cas table. */
export async function casEntry(
  src: RowSource,
  semanticHash: string,
): Promise<[unknown, unknown] | null | 'no table'> {
  let hit: [unknown, unknown] | null = null
  const has = await src.scanTable('cas', ['body_hash', 'first_seen_ns', 'ref_count'], (v) => {
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

export async function verifyRow(
  src: RowSource,
  row: ChainRow,
  keys: KeyMaterial[],
): Promise<RowVerification> {
  let pred: { seq: bigint; hmac: unknown } | null = null
  await src.scan({ to: row.seq - 1n, descending: true, fields: ['hmac_hash'] }, (r) => {
    pred = { seq: r.seq, hmac: r.hmac_hash }
    return false
  })
  const p = pred as { seq: bigint; hmac: unknown } | null
  const body = Buffer.isBuffer(row.canonical_body) ? row.canonical_body : Buffer.alloc(0)
  const computed = sha256Hex(body)
  const prev = row.prev_hash
  const link: RowVerification['link'] = p
    ? { kind: 'predecessor', seq: p.seq, ok: prev === p.hmac }
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
        span_name: src.columns.has('span_name'),
        span_kind: src.columns.has('span_kind'),
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

/** The reference's text of `inspect`, then (with a key) the row's verification. */
export function inspectText(
  row: ChainRow,
  cas: [unknown, unknown] | null | 'no table',
  check: { result: RowVerification; keys: KeyMaterial[] } | null,
): string {
  const label = (k: string): string => `${k}:`.padEnd(21)
  const sem = row.semantic_body_hash
  const lines = [
    '=== Span Metadata ===',
    `${label('seq')}${row.seq}`,
    `${label('timestamp')}${pyFormatTime(row.timestamp_ns)}`,
    ...(['trace_id', 'span_id', 'span_name', 'span_kind', 'canonical_hash'] as const).map(
      (k) => `${label(k)}${pyColumnStr(row[k])}`,
    ),
    `${label('semantic_body_hash')}${sem === null || sem === undefined || sem === '' ? '(none)' : pyColumnStr(sem)}`,
    `${label('prev_hash')}${pyColumnStr(row.prev_hash)}`,
    `${label('hmac_hash')}${pyColumnStr(row.hmac_hash)}`,
  ]
  const body = pyParseBody(Buffer.isBuffer(row.canonical_body) ? row.canonical_body : null)
  const attrs = pyAttributes(body)
  lines.push('', `=== Status: ${policyStatus(attrs)} ===`, `Cost (real): ${costText(attrs)}`)
  lines.push('', '=== Canonical Body (decoded) ===', pyJsonIndented(body, { ascii: false }))
  if (typeof sem === 'string' && pyTruthy(sem)) {
    if (Array.isArray(cas)) {
      lines.push(
        '',
        '=== CAS Entry ===',
        `body_hash:     ${sem}`,
        `first_seen:    ${pyFormatTime(cas[0])}`,
        `ref_count:     ${pyColumnStr(cas[1])}`,
      )
    } else if (cas === 'no table') lines.push('', '=== CAS: table not present ===')
    else lines.push('', '=== CAS: no entry (no semantic_body_hash) ===')
  }
  if (check) lines.push('', ...verificationLines(check.result, check.keys))
  return lines.join('\n') + '\n'
}

function verificationLines(v: RowVerification, keys: KeyMaterial[]): string[] {
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
    v.verifies ? 'Row VERIFIES.' : 'Row does NOT verify.',
  ]
}
