// What an export shows beside its sealed bodies (reference §9.2: "Metadata fields … are
// authenticated by nothing"). The reference answers VALID for an export whose entries say
// `seq: 999`, `span_name: "fake"` or `timestamp_ns: 1`, or carry a member of the writer's choosing
// (`"note": "cleared"`): text a reader of the file takes as verified. Checked here, after the
// reference's own checks have passed, as `verify` checks a chain.db's unsealed columns:
// - every member is one the export format names (§9.1); anything else is covered by nothing;
// - seqs are integers, each the one before plus one (the order the links prove; verify calls
//   anything else a seq_gap), a range export's `segment` names the first and last of them, and
//   seq 1 links to the genesis hash (the one seq a link proves; any other seq is the writer's word);
// - each span body's sealed name, kind and end time are what the entry's span_name, span_kind and
//   timestamp_ns say (`columnMismatches`, as verify's column_mismatch). JSON.parse reads
//   timestamp_ns (~1.7e18) as the nearest double, so the time is compared as the literal the
//   parse kept (exactIntegerText): the sealed time to the nanosecond, or that time rounded to a
//   double as a writer in JavaScript or a float writes it (timeAsSealed); any other literal that
//   rounds to the same double is a time no writer wrote for this body.
// - what nothing in a body holds — trace_id, span_id, semantic_body_hash (a hash of an input-only
//   form whose rules changed across writer versions), created_at, version — cannot be proven, but
//   must be what the writers write (§9.1, §1: lowercase hex ids, Python's isoformat of a UTC time,
//   "1.0"): any other text (`"trace_id": "VERIFIED BY THE COURT"`, a number, an object) would be
//   read in a VALID export while no writer made it;
// - the segment's counts are the entries' (total_in_segment is their number, is_complete_chain is
//   first_seq 1 and last_seq the chain's total, as §9.1 computes them), and no segment without entries.
import { utcInstantMs } from '../base/calendar'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import { exactIntegerText } from '../chain/i-json'
import { GENESIS_HASH } from '../chain/seal'

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

/** The forms §9.1's writer gives the members nothing authenticates (§1: the columns it copies). */
const FORMS: Record<string, { re: RegExp; says: string; nullable?: boolean }> = {
  trace_id: { re: /^[0-9a-f]{32}$/, says: '32 lowercase hex digits' },
  span_id: { re: /^[0-9a-f]{16}$/, says: '16 lowercase hex digits' },
  semantic_body_hash: { re: /^[0-9a-f]{64}$/, says: '64 lowercase hex digits or null', nullable: true },
}

/** Python's `datetime.now(timezone.utc).isoformat()`: microseconds only when not zero. */
const CREATED_AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{6})?\+00:00$/

function isInstant(v: unknown): boolean {
  const m = typeof v === 'string' ? CREATED_AT.exec(v) : null
  if (!m) return false
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  return utcInstantMs(y, mo, d, h, mi, se) !== null
}

const shown = (v: unknown): string => (JSON.stringify(v) ?? 'absent').slice(0, 80)

/** The writer's forms of the top members, or why not. */
function topProblem(doc: Record<string, unknown>): string | null {
  if (doc['version'] !== '1.0')
    return `version is ${shown(doc['version'])}, not "1.0" as the writer writes it: ${UNCOVERED}`
  if (!isInstant(doc['created_at']))
    return `created_at is ${shown(doc['created_at'])}, not a UTC time as the writer writes it (YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00): ${UNCOVERED}`
  if ((doc['format'] === 'bijotel-chain-v2') !== (doc['ed25519_signature'] !== undefined))
    return doc['format'] === 'bijotel-chain-v2'
      ? 'the export says bijotel-chain-v2 (signed) and carries no ed25519_signature'
      : `an ed25519_signature in a ${shown(doc['format'])} export: only bijotel-chain-v2 carries one`
  return null
}

/** The segment's counts as §9.1 computes them from the entries, or why not (seqs checked before). */
function segmentProblem(
  doc: Record<string, unknown>,
  seg: Record<string, unknown> | null,
  count: number,
): string | null {
  if (seg === null)
    return doc['segment'] === undefined ? null : `segment is ${shown(doc['segment'])}, not an object`
  if (count === 0)
    return `a segment in an export of no entries: the writer adds one only to a non-empty range (${UNCOVERED})`
  const total = seg['total_in_full_chain']
  if (seg['total_in_segment'] !== count)
    return `segment.total_in_segment is ${shown(seg['total_in_segment'])}, the entries are ${count}: ${UNCOVERED}`
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < count)
    return `segment.total_in_full_chain is ${shown(total)}, not a count of at least the segment's ${count} rows: ${UNCOVERED}`
  const complete = seg['first_seq'] === 1 && seg['last_seq'] === total
  if (seg['is_complete_chain'] !== complete)
    return `segment.is_complete_chain is ${shown(seg['is_complete_chain'])}, where first_seq ${shown(seg['first_seq'])}, last_seq ${shown(seg['last_seq'])} and total_in_full_chain ${total} make it ${complete}: ${UNCOVERED}`
  return null
}

/** Why the export's metadata cannot be taken as shown (bodies already proven), or null. */
export function exportMetadataProblem(doc: Record<string, unknown>, entries: unknown[]): string | null {
  const unknown = unknownIn(doc, TOP)
  if (unknown !== null) return `unknown member ${JSON.stringify(unknown)} in the export: ${UNCOVERED}`
  const seg = record(doc['segment'])
  for (const [name, o, known] of [
    ['segment', seg, SEGMENT],
    ['ed25519_signature', record(doc['ed25519_signature']), SIGNATURE],
  ] as const) {
    const k = unknownIn(o, known)
    if (k !== null) return `unknown member ${JSON.stringify(k)} in ${name}: ${UNCOVERED}`
  }
  const top = topProblem(doc)
  if (top !== null) return top
  let prev: number | null = null
  for (let i = 0; i < entries.length; i++) {
    const e = record(entries[i]) ?? {}
    const seq = e['seq']
    const at = `entries[${i}]`
    const k = unknownIn(e, ENTRY)
    if (k !== null) return `unknown member ${JSON.stringify(k)} at ${at}: ${UNCOVERED}`
    for (const [name, form] of Object.entries(FORMS)) {
      const v = e[name]
      if (!(form.nullable && v === null) && !(typeof v === 'string' && form.re.test(v)))
        return `${name} of ${at} is ${shown(v)}, not ${form.says} as the writer writes it: ${UNCOVERED}`
    }
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
      typeof ts === 'number' &&
      typeof end === 'string' &&
      /^-?\d+$/.test(end) &&
      timeAsSealed(ts, exactIntegerText(e, 'timestamp_ns'), end)
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
  // The one seq a link proves: seq 1 is the chain's first row, sealed after the genesis hash (§1),
  // as verify holds a chain.db's. A range export's rows relabelled from seq 1 (rows 2-11 shown as
  // 1-10, its segment saying first_seq 1 and is_complete_chain) read VALID while its first row links
  // to a row it does not hold.
  const head = record(entries[0])
  if (head !== null && head['seq'] === 1 && head['prev_hash'] !== GENESIS_HASH)
    return `seq 1 at entries[0] links to ${shown(head['prev_hash'])}, not the genesis hash a chain's first row is sealed after: it is not seq 1 (a seq is ${UNCOVERED})`
  if (seg !== null && entries.length > 0) {
    const first = record(entries[0])?.['seq']
    if (seg['first_seq'] !== first || seg['last_seq'] !== prev)
      return `segment says seq ${JSON.stringify(seg['first_seq'])}-${JSON.stringify(seg['last_seq'])}, the entries hold ${JSON.stringify(first)}-${prev}: ${UNCOVERED}`
  }
  return segmentProblem(doc, seg, entries.length)
}

/**
 * Whether an entry's timestamp_ns (`ts`, as JSON.parse reads it; `literal`, its text when it is an
 * integer past 2^53) is the sealed end time `end`. Honest exports write it three ways: Python
 * BIJOTEL's export the integer exactly; one built in JavaScript (better-sqlite3 reads an INTEGER
 * column as a double, JSON.stringify writes the double's shortest form, ECMA-262 Number::toString)
 * `1764001812774471500` for a sealed `1764001812774471483`; one that widened the double back to an
 * integer (BigInt(), Python's int(float)) its exact value `1764001812774471424`. These are taken;
 * any other literal is another time, though it may read as the same double (1 ns off: the evidence
 * shows a time the body does not hold). A literal in a fraction or exponent form is already the
 * shortest form of its double (i-json.ts refuses any other), so that double is compared.
 */
function timeAsSealed(ts: number, literal: string | undefined, end: string): boolean {
  const rounded = Number(end)
  if (literal === undefined) return rounded === ts
  const n = BigInt(literal)
  return n === BigInt(end) || literal === String(rounded) || n === BigInt(rounded)
}
