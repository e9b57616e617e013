// Writing Python BIJOTEL's export file (reference §9.1): `json.dumps(payload, indent=2)` with its key
// order, base64 bodies, `chain_signature`, the `segment` block of a range export and, with an Ed25519
// key, the v2 signature over the chain_signature text. Unlike the reference, which loads every row
// and writes whatever the file holds (§11.20), the rows are first verified — the range's boundary
// included: its first row must link to its predecessor in the file — and nothing is written unless
// they verify; then they are streamed into a temporary file beside the target (one slice of rows in
// memory at a time) and renamed into place. The evidence is never the target (./output-file.ts).
import { createHash } from 'node:crypto'
import type { VerifyRangeOptions, VerifyVerdict } from '../../shared/verify-types'
import { readChain } from '../chain/source/open-source'
import type { HeldChain } from '../chain/source/held-chain'
import { WHOLE, type ChainRow, type RowSource } from '../chain/source/row-source'
import { bytesOf, seqOf, streamRows, valueOf } from '../chain/source/stream'
import { AuditError } from '../base/errors'
import { pyJsonString } from '../python/pyformat'
import { GENESIS_HASH } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'
import { hasRange, verifyRows } from '../verify/verify'
import { AtomicOutput, checkOutputTarget } from './output-file'
import type { ChainColumn } from '../../shared/chain-columns'
import { pyColumnValue, pyJsonIndented, pyJsonStringFast } from '../python/python-json'
import { signText, type SigningKey } from './sign-key'
import { chainSignature, FORMAT_V1, FORMAT_V2 } from './verify-export'

/** Where the rows come from: a chain file given by path (the CLI), or the session's opened chain. */
export type ExportSource = { path: string } | { opened: HeldChain }

export interface ExportRequest {
  source: ExportSource
  output: string
  /** Candidate keys: every row must verify under one of them; the head row's key signs the file. */
  keys: KeyMaterial[]
  range?: VerifyRangeOptions
  signKey?: SigningKey
  env?: Record<string, string | undefined>
  onProgress?: (phase: 'verifying' | 'writing', done: number, total: number) => void
  signal?: { aborted: boolean }
  /** µs since the epoch for `created_at` (default: now). */
  nowUs?: () => bigint
}

export interface ExportWritten {
  written: true
  /** The path written (symlinks in its folder resolved). */
  path: string
  format: typeof FORMAT_V1 | typeof FORMAT_V2
  entries_count: number
  head_hash: string
  size: number
  /** Fingerprint of the signing key (v2), else null. */
  signed_by: string | null
  /** The verdict the rows passed before they were written. */
  verdict: VerifyVerdict
}

/** The rows did not verify: nothing was written. */
export interface ExportRefused {
  written: false
  verdict: VerifyVerdict
}

/** Python's `datetime.now(UTC).isoformat()`: microseconds only when non-zero, `+00:00`. */
export function pyIsoUtc(us: bigint): string {
  const sec = us / 1_000_000n - (us % 1_000_000n < 0n ? 1n : 0n)
  const frac = us - sec * 1_000_000n
  const base = new Date(Number(sec) * 1000).toISOString().slice(0, 19)
  return frac === 0n ? `${base}+00:00` : `${base}.${frac.toString().padStart(6, '0')}+00:00`
}

function nowUs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000))
}

/** The columns an entry carries (its keys are written in the reference's order by entryText). */
const FIELDS = [
  'timestamp_ns',
  'trace_id',
  'span_id',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'semantic_body_hash',
  'prev_hash',
  'hmac_hash',
] as const satisfies readonly ChainColumn[]
type Field = (typeof FIELDS)[number]

/** One column's value as json.dumps writes it (strings, the common case, without a detour). */
function columnText(v: unknown): string {
  return typeof v === 'string' ? pyJsonStringFast(v) : pyJsonIndented(pyColumnValue(v), { level: 3 })
}

/** An entry at depth 2 of `json.dumps(payload, indent=2)`, keys in the reference's order. */
function entryText(v: (f: Field) => unknown, seq: bigint, body: Buffer): string {
  return (
    `    {\n      "seq": ${seq},\n      "timestamp_ns": ${columnText(v('timestamp_ns'))},\n` +
    `      "trace_id": ${columnText(v('trace_id'))},\n      "span_id": ${columnText(v('span_id'))},\n` +
    `      "span_name": ${columnText(v('span_name'))},\n      "span_kind": ${columnText(v('span_kind'))},\n` +
    `      "canonical_body_b64": "${body.toString('base64')}",\n` +
    `      "canonical_hash": ${columnText(v('canonical_hash'))},\n` +
    `      "semantic_body_hash": ${columnText(v('semantic_body_hash'))},\n` +
    `      "prev_hash": ${columnText(v('prev_hash'))},\n      "hmac_hash": ${columnText(v('hmac_hash'))}\n    }`
  )
}

function evidencePath(source: ExportSource): string {
  return 'opened' in source ? source.opened.evidence().db.path : source.path
}

/**
 * Verify the rows (range resolved as `verify` resolves it), then write them as an export file.
 * Throws AuditError for an unusable key, output path, chain or write; returns `written: false` when
 * the rows do not verify. Both passes read one source: a chain given by path through `readChain`
 * (a pass the direct reader gives up on is redone, whole, through SQLite), the session's through
 * its opened chain.
 */
export async function writeExport(req: ExportRequest): Promise<ExportWritten | ExportRefused> {
  if (req.keys.length === 0)
    throw new AuditError('no_secret', 'HMAC secret required (--secret-hex or BIJOTEL_HMAC_SECRET).')
  if (req.keys.some((k) => k.bytes.length < 16))
    throw new AuditError('bad_secret', 'secret_key must be at least 16 bytes')
  const target = checkOutputTarget(req.output, evidencePath(req.source))
  if ('opened' in req.source) {
    checkOutputTarget(req.output, req.source.opened.readPath)
    return req.source.opened.read((source) => exportFrom(source, req, target))
  }
  return readChain(
    req.source.path,
    (source) => exportFrom(source, req, target),
    req.env ? { env: req.env } : {},
  )
}

async function exportFrom(
  source: RowSource,
  req: ExportRequest,
  target: string,
): Promise<ExportWritten | ExportRefused> {
  const verdict = await verifyRows(source, req.keys, {
    ...(req.range ? { range: req.range } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    onProgress: (d: number, t: number) => req.onProgress?.('verifying', d, t),
  })
  if (!verdict.valid) return { written: false, verdict }

  const count = verdict.entries
  const head = verdict.head_hmac ?? GENESIS_HASH
  const headSegment = verdict.key_segments[verdict.key_segments.length - 1]
  const signer = req.keys.find((k) => k.index === headSegment?.key_index) ?? req.keys[0]!
  const signature = chainSignature(signer.bytes, head, count)
  const firstPrev = verdict.boundary?.prev_hash ?? GENESIS_HASH
  // The reference adds `segment` to range exports; it is added too when the first row does not link
  // to GENESIS (a chain whose first rows were archived), or the file could never verify.
  const segment =
    count > 0 && (hasRange(req.range) || firstPrev !== GENESIS_HASH)
      ? new Map<string, bigint | number | string | boolean>([
          ['first_seq', verdict.first_seq!],
          ['last_seq', verdict.last_seq!],
          ['total_in_segment', count],
          ['total_in_full_chain', verdict.range?.total_in_chain ?? count],
          ['boundary_prev_hash', firstPrev],
          [
            'is_complete_chain',
            verdict.first_seq === 1 && verdict.last_seq === (verdict.range?.total_in_chain ?? count),
          ],
        ])
      : null

  const at = new Map<Field, number>(FIELDS.map((f) => [f, source.col(f)]))
  let out: AtomicOutput | null = null
  try {
    const missing = FIELDS.find((f) => at.get(f)! < 0)
    if (missing) throw new AuditError('missing_columns', `no such column: ${missing}`)
    out = new AtomicOutput(target)
    const format = req.signKey ? FORMAT_V2 : FORMAT_V1
    const top = (k: string, v: string): string => `  ${pyJsonString(k)}: ${v}`
    out.writeAscii(
      [
        '{',
        [
          top('version', pyJsonString('1.0')),
          top('format', pyJsonString(format)),
          top('created_at', pyJsonString(pyIsoUtc((req.nowUs ?? nowUs)()))),
          top('entries_count', String(count)),
          top('head_hash', pyJsonString(head)),
          top('chain_signature', pyJsonString(signature)),
          `  "entries": ${count === 0 ? '[]' : '['}`,
        ].join(',\n'),
      ].join('\n'),
    )
    let written = 0
    let prev: string | null = null
    let last: string | null = null
    if (count > 0) {
      // The whole table, or the verified range's rows (seq bounds: the range as verify resolved it).
      const range = hasRange(req.range)
        ? { from: BigInt(verdict.first_seq!), to: BigInt(verdict.last_seq!) }
        : WHOLE
      const body = at.get('canonical_body')!
      await streamRows(
        source,
        {
          range,
          columns: FIELDS,
          ...(req.signal ? { signal: req.signal } : {}),
          onProgress: (d) => req.onProgress?.('writing', d, count),
        },
        (r: ChainRow) => {
          const v = (f: Field): unknown => valueOf(r, at.get(f)!)
          const bytes = bytesOf(r, body) ?? Buffer.alloc(0)
          // The rows were verified a moment ago; what is written is checked against that verdict
          // again (hash and link per row, count and head at the end), so a file that changed in
          // between is never exported under the earlier verdict.
          const hash = createHash('sha256').update(bytes).digest('hex')
          const rowPrev = String(v('prev_hash'))
          if (hash !== v('canonical_hash') || (prev === null ? rowPrev !== firstPrev : rowPrev !== prev))
            throw changed()
          prev = last = String(v('hmac_hash'))
          out!.writeAscii((written === 0 ? '\n' : ',\n') + entryText(v, seqOf(r), bytes))
          written++
        },
      )
      out.writeAscii('\n  ]')
    }
    if (written !== count || (count > 0 && last !== head)) throw changed()
    source.assertUnchanged()
    if (segment) out.writeAscii(`,\n  "segment": ${pyJsonIndented(segment, { level: 1 })}`)
    if (req.signKey) {
      const block = new Map([
        ['public_key', req.signKey.publicRaw.toString('base64')],
        ['signature', signText(req.signKey, signature).toString('base64')],
        ['signed_over', 'chain_signature'],
        ['algorithm', 'Ed25519'],
      ])
      out.writeAscii(`,\n  "ed25519_signature": ${pyJsonIndented(block, { level: 1 })}`)
    }
    out.writeAscii('\n}')
    const size = out.commit()
    out = null
    return {
      written: true,
      path: target,
      format,
      entries_count: count,
      head_hash: head,
      size,
      signed_by: req.signKey?.fingerprint ?? null,
      verdict,
    }
  } finally {
    out?.abort()
  }
}

function changed(): AuditError {
  return new AuditError(
    'evidence_changed',
    'the chain changed between its verification and the writing of the export; nothing was written',
  )
}
