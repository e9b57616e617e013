// What an export shows beside its sealed bodies (reference §9.2: "Metadata fields … are
// authenticated by nothing"). The reference answers VALID for an export whose entries say
// `seq: 999`, `span_name: "fake"` or `timestamp_ns: 1`, or carry a member of the writer's choosing
// (`"note": "cleared"`): text a reader of the file takes as verified. Checked here, after the
// reference's own checks have passed, as `verify` checks a chain.db's unsealed columns:
// - every member is one the export format names (§9.1); anything else is covered by nothing;
// - seqs are integers, each the one before plus one (the order the links prove; verify calls
//   anything else a seq_gap), and a range export's `segment` names the first and last of them;
// - each span body's sealed name, kind and end time are what the entry's span_name, span_kind and
//   timestamp_ns say (`columnMismatches`, as verify's column_mismatch). JSON.parse reads
//   timestamp_ns (~1.7e18) as the nearest double, so the time is compared at that precision.
// Left unchecked, as nothing in the body holds them: trace_id, span_id, semantic_body_hash (a hash of
// an input-only form whose rules changed across writer versions), created_at.
import { columnMismatches, sealedSpanFields } from '../chain/body'

const TOP = new Set([
  'version',
  'format',
  'created_at',
  'entries_count',
  'head_hash',
  'chain_signature',
  'entries',
  'segment',
  'ed25519_signature',
])
const ENTRY = new Set([
  'seq',
  'timestamp_ns',
  'trace_id',
  'span_id',
  'span_name',
  'span_kind',
  'canonical_body_b64',
  'canonical_hash',
  'semantic_body_hash',
  'prev_hash',
  'hmac_hash',
])
const SEGMENT = new Set([
  'first_seq',
  'last_seq',
  'total_in_segment',
  'total_in_full_chain',
  'boundary_prev_hash',
  'is_complete_chain',
])
const SIGNATURE = new Set(['public_key', 'signature', 'signed_over', 'algorithm'])

function record(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

function unknownIn(o: Record<string, unknown> | null, known: Set<string>): string | null {
  if (o === null) return null
  for (const k of Object.keys(o)) if (!known.has(k)) return k
  return null
}

const UNCOVERED = 'covered by no HMAC or signature'

/** Why the export's metadata cannot be taken as shown (bodies already proven), or null. */
export function exportMetadataProblem(doc: Record<string, unknown>, entries: unknown[]): string | null {
  const top = unknownIn(doc, TOP)
  if (top !== null) return `unknown member ${JSON.stringify(top)} in the export: ${UNCOVERED}`
  const seg = record(doc['segment'])
  for (const [name, o, known] of [
    ['segment', seg, SEGMENT],
    ['ed25519_signature', record(doc['ed25519_signature']), SIGNATURE],
  ] as const) {
    const k = unknownIn(o, known)
    if (k !== null) return `unknown member ${JSON.stringify(k)} in ${name}: ${UNCOVERED}`
  }
  let prev: number | null = null
  for (let i = 0; i < entries.length; i++) {
    const e = record(entries[i]) ?? {}
    const seq = e['seq']
    const at = `entries[${i}]`
    const k = unknownIn(e, ENTRY)
    if (k !== null) return `unknown member ${JSON.stringify(k)} at ${at}: ${UNCOVERED}`
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq))
      return `seq of ${at} is ${JSON.stringify(seq) ?? 'absent'}, not an integer`
    // verify calls a seq that is not the one before plus one a seq_gap finding, links or not.
    if (prev !== null && seq !== prev + 1)
      return `seq ${seq} at ${at} does not follow seq ${prev} (the entries' links give their order, and a seq is ${UNCOVERED})`
    prev = seq
    const body = Buffer.from(String(e['canonical_body_b64']), 'base64')
    let fields
    try {
      fields = sealedSpanFields(body)
    } catch {
      fields = null // a body that is not JSON has no span fields to compare
    }
    if (fields === null) continue
    const ts = e['timestamp_ns']
    const end =
      fields.end_time_ns === null || fields.end_time_ns === '0' ? fields.start_time_ns : fields.end_time_ns
    const sameTime =
      typeof ts === 'number' && typeof end === 'string' && /^-?\d+$/.test(end) && Number(end) === ts
    const wrong = columnMismatches(
      fields,
      sameTime ? BigInt(end as string) : null,
      e['span_name'],
      e['span_kind'],
      {
        span_name: true,
        span_kind: true,
      },
    )
    if (wrong.length > 0)
      return `${wrong.join(', ')} at seq=${seq} disagree${wrong.length === 1 ? 's' : ''} with the sealed body: ${UNCOVERED}`
  }
  if (seg !== null && entries.length > 0) {
    const first = record(entries[0])?.['seq']
    if (seg['first_seq'] !== first || seg['last_seq'] !== prev)
      return `segment says seq ${JSON.stringify(seg['first_seq'])}-${JSON.stringify(seg['last_seq'])}, the entries hold ${JSON.stringify(first)}-${prev}: ${UNCOVERED}`
  }
  return null
}
