// Reading an exported report back (issue 25): the JSON file, or the HTML page that embeds the same
// JSON in `<script type="application/json" id="bijotel-report">`; and the prior head a report (or an
// earlier `verify --json` verdict) gives the next audit.
import type { RowsDigest } from '../../shared/custody-types'
import type { AuditReport } from '../../shared/report-types'
import { REPORT_SCHEMA_ID } from '../../shared/report-types'
import type { PriorHead, PriorSource } from '../../shared/verify-types'
import { readClientFile, type OpenPolicy } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { IJSON_MAX_DEPTH, IJsonError, parseIJson, type IJsonLimits } from '../chain/i-json'
import { ROWS_DIGEST_ALGORITHM } from '../chain/rows-digest'
import { EMBED_ID, renderReportHtml } from './html/render'
import { requireKnownMembers } from './report-members'
import { requireSchemaValues } from './report-values'
import { checkReportSignature } from './sign'

/**
 * Reports, priors and verdicts above this are refused in one line. A report's size is its
 * findings: ~195 bytes and ~7.5 JSON values each (measured on generated chains of 10k and 100k
 * rows, every other row broken); the rest is bounded (coverage holds at most 1024 row blocks):
 * ~110 KB for a valid chain of any length up to 10M rows. 64 MiB holds ~340,000 findings.
 */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024
/** Values a report may hold (~26 bytes each in a real report): the parse's memory bound. */
export const MAX_REPORT_VALUES = 3_000_000
export const REPORT_LIMITS: IJsonLimits = {
  maxDepth: IJSON_MAX_DEPTH,
  maxValues: MAX_REPORT_VALUES,
  plainIntegers: true,
}

export { EMBED_ID }
/** The least a finding's row adds to the drawn page: its markup alone (measured: 287 bytes). */
const MIN_FINDING_ROW_BYTES = 256
const EMBED_OPEN = `<script type="application/json" id="${EMBED_ID}">\n`
const EMBED_CLOSE = '\n</script>'

export interface ReadReport {
  doc: Record<string, unknown>
  format: 'json' | 'html'
}

/** The JSON value of `bytes` as I-JSON, or one line naming the first offence and its byte offset. */
function strictJson(input: Buffer | string, label: string, base = 0): unknown {
  try {
    return parseIJson(input, REPORT_LIMITS)
  } catch (e) {
    if (e instanceof IJsonError)
      throw new AuditError(
        'bad_argument',
        `${label}: not I-JSON (RFC 7493): ${e.reason} at byte ${e.offset + base}`,
      )
    throw new AuditError('bad_argument', `${label}: not JSON (${oneLine(e)})`)
  }
}

/** Index of the first byte where `a` and `b` differ. */
function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i
  return n
}

/**
 * Why a page differs when its embedded report holds a code point raw that this version writes as a
 * `\u` escape (bidi overrides, zero-width and other invisible characters, C1 controls: docs/custody.md):
 * a page written before round 9, or one edited to hide text. Either way not taken; the line names
 * the code point and what to do instead. Null when the embedded report holds none.
 */
function rawWhereEscaped(embedded: Buffer): string | null {
  // CR, LF and TAB are the page's own layout between members (raw in a string, JSON refuses them).
  const m = /(?![\n\r\t\u200c]|\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.exec(embedded.toString('utf8'))
  if (!m) return null
  const cp = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
  return (
    `its embedded report holds U+${cp} raw where this version writes an escape (a page from an ` +
    "earlier version, or one edited to hide text); check the report's JSON file instead"
  )
}

/**
 * A report page is taken only if it is, byte for byte, the page this program draws from the report
 * embedded in it: the signature covers the embedded JSON, so this is what makes it cover what a
 * browser shows (the words, the style, the Content-Security-Policy, the absence of scripts).
 */
function reportOfPage(bytes: Buffer, label: string): Record<string, unknown> {
  // Found by two linear searches, not a pattern: a lazy `[\s\S]*?` between the tags rescans to the
  // end of the page from every opening tag, so a page of many openings and no closing (10 MB of
  // them) took minutes. The first opening and the first closing after it are the block (a later
  // opening has no closing either when the first has none); the page is then held to the drawn one.
  const open = bytes.indexOf(EMBED_OPEN)
  const base = open + EMBED_OPEN.length
  const close = open < 0 ? -1 : bytes.indexOf(EMBED_CLOSE, base)
  if (close < 0)
    throw new AuditError('bad_argument', `${label}: an HTML file without an embedded report (${EMBED_ID})`)
  const doc = strictJson(bytes.subarray(base, close), `${label} (embedded report)`, base)
  if (
    typeof doc !== 'object' ||
    doc === null ||
    Array.isArray(doc) ||
    !isReport(doc as Record<string, unknown>)
  )
    throw new AuditError('bad_argument', `${label}: the page does not embed an audit report`)
  requireKnownMembers(doc as Record<string, unknown>, label)
  // Drawing is the costly step (~40 µs a finding): a page far smaller than its embedded report's
  // page would be (37 MB holding 280,000 findings drew 145 MB in 30 s) is refused before drawing,
  // so a page costs no more to check than an honest page of its size.
  const findings = obj(obj(obj(doc)?.['verification'])?.['verdict'])?.['findings']
  const least = close - base + (Array.isArray(findings) ? findings.length * MIN_FINDING_ROW_BYTES : 0)
  if (least > bytes.length)
    throw new AuditError(
      'bad_argument',
      `${label}: the page is not the one this program draws from the report embedded in it: it has ${bytes.length} bytes, and the page drawn from its report would have more than ${least}`,
    )
  requireSchemaValues(doc as Record<string, unknown>, label)
  let drawn: Buffer
  try {
    drawn = Buffer.from(renderReportHtml(doc as unknown as AuditReport), 'utf8')
  } catch (e) {
    throw new AuditError(
      'bad_argument',
      `${label}: the embedded report cannot be drawn as a page (${oneLine(e)})`,
    )
  }
  if (!drawn.equals(bytes)) {
    const at = firstDifference(drawn, bytes)
    throw new AuditError(
      'bad_argument',
      `${label}: the page is not the one this program draws from the report embedded in it (first difference at byte ${at}): ` +
        (rawWhereEscaped(bytes.subarray(base, close)) ?? 'what a browser shows is not what is signed'),
    )
  }
  return doc as Record<string, unknown>
}

/**
 * The JSON document of a report or verdict: the bytes of a file, or text a client handed over
 * (JSON, or a report's HTML page). Read as I-JSON within REPORT_LIMITS.
 */
export function parseReportText(input: Buffer | string, label: string): ReadReport {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length
  if (size > MAX_REPORT_BYTES)
    throw new AuditError(
      'bad_argument',
      `${label}: ${size} bytes is over the ${MAX_REPORT_BYTES}-byte limit for a report`,
    )
  let i = 0
  const at = (k: number): number => (typeof input === 'string' ? input.charCodeAt(k) : (input[k] ?? NaN))
  while (at(i) === 0x20 || at(i) === 0x0a || at(i) === 0x0d || at(i) === 0x09) i++
  if (at(i) === 0x3c) {
    const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input
    if (typeof input === 'string' && bytes.toString('utf8') !== input)
      throw new AuditError(
        'bad_argument',
        `${label}: the page holds a lone surrogate: not text a browser would show as given`,
      )
    return { doc: reportOfPage(bytes, label), format: 'html' }
  }
  const doc = strictJson(input, label)
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new AuditError('bad_argument', `${label}: not a JSON object`)
  if (isReport(doc as Record<string, unknown>)) {
    requireKnownMembers(doc as Record<string, unknown>, label)
    requireSchemaValues(doc as Record<string, unknown>, label)
  }
  return { doc: doc as Record<string, unknown>, format: 'json' }
}

/**
 * A report or verdict file: opened and read once through src/main/base/client-file.ts (under the
 * open roots when `policy` is given), then parsed. The bytes are read as I-JSON (a BOM is refused).
 */
export function readReportFile(path: string, label = path, policy?: OpenPolicy): ReadReport {
  const bytes = readClientFile(path, {
    label,
    maxBytes: MAX_REPORT_BYTES,
    tooLarge: (n) =>
      new AuditError(
        'bad_argument',
        `${label}: ${n} bytes is over the ${MAX_REPORT_BYTES}-byte limit for a report`,
      ),
    ...(policy ? { policy } : {}),
  })
  return parseReportText(bytes, label)
}

/** Whether a document is one of our audit reports (any 1.x schema version). */
export function isReport(doc: Record<string, unknown>): boolean {
  return doc['$schema'] === REPORT_SCHEMA_ID && typeof doc['schema_version'] === 'string'
}

function obj(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
}

const isSeq = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v)

/** A report's rows digest, checked for the shape the comparison relies on (null when absent). */
export function rowsDigestOf(doc: Record<string, unknown>, label: string): RowsDigest | null {
  const rows = obj(obj(doc['coverage'])?.['rows'])
  if (rows === null) return null
  const blocks = rows['blocks']
  const okBlocks =
    Array.isArray(blocks) &&
    blocks.every((b) => {
      const o = obj(b)
      return (
        o !== null &&
        isSeq(o['from_seq']) &&
        isSeq(o['to_seq']) &&
        isSeq(o['rows']) &&
        typeof o['digest'] === 'string'
      )
    })
  const bs = rows['block_size']
  if (
    rows['algorithm'] !== ROWS_DIGEST_ALGORITHM ||
    !okBlocks ||
    typeof bs !== 'number' ||
    !Number.isSafeInteger(bs) ||
    bs < 1 ||
    !isSeq(rows['count']) ||
    typeof rows['digest'] !== 'string' ||
    !(rows['first_seq'] === null || isSeq(rows['first_seq'])) ||
    !(rows['last_seq'] === null || isSeq(rows['last_seq']))
  )
    throw new AuditError('bad_argument', `${label}: coverage.rows is not a rows digest this version reads`)
  return rows as unknown as RowsDigest
}

/** The first row a report's evidence statement names (its seq and timestamp_ns), when it names one. */
export function firstRowOf(doc: Record<string, unknown>): PriorHead['first'] | undefined {
  return firstOfStatement(obj(obj(doc['coverage'])?.['statement']))
}

/** An evidence statement's first row (a report's coverage.statement, a `verify --json` verdict's evidence). */
function firstOfStatement(st: Record<string, unknown> | null): PriorHead['first'] | undefined {
  const seq = st?.['first_seq']
  const ts = st?.['first_timestamp_ns']
  return isSeq(seq) && typeof ts === 'string' && /^-?\d+$/.test(ts) ? { seq, timestamp_ns: ts } : undefined
}

/**
 * The prior head of `verify --prior FILE`: an earlier verdict (`last_seq`, `head_hmac`), or an
 * exported report (JSON or HTML), whose covered rows are then checked one by one (through their
 * digest). A signed report's signature must hold against its own key: a prior changed after it was
 * signed is refused.
 */
export function priorFrom(read: ReadReport, label: string): PriorHead {
  const { doc } = read
  if (isReport(doc)) {
    let signedBy: string | undefined
    if (doc['signature'] !== undefined) {
      const sig = checkReportSignature(doc)
      if (sig.status !== 'valid') throw new AuditError('bad_argument', `${label}: ${sig.detail}`)
      signedBy = sig.fingerprint ?? undefined
    }
    const source: PriorSource = {
      kind: 'report',
      ...(typeof doc['generated_at'] === 'string' ? { generated_at: doc['generated_at'] } : {}),
      ...(signedBy ? { signed_by: signedBy } : {}),
    }
    const rows = rowsDigestOf(doc, label)
    if (rows) {
      if (rows.last_seq === null || typeof rows.head_hmac !== 'string')
        throw new AuditError(
          'bad_argument',
          `${label}: the report covered no rows; there is nothing to compare`,
        )
      const first = firstRowOf(doc)
      return { last_seq: rows.last_seq, head_hmac: rows.head_hmac, rows, source, ...(first ? { first } : {}) }
    }
    // A report written before coverage existed (schema 1.0): its verdict's head, as a verdict prior.
    const v = obj(obj(doc['verification'])?.['verdict'])
    if (v && isSeq(v['last_seq']) && typeof v['head_hmac'] === 'string')
      return { last_seq: v['last_seq'], head_hmac: v['head_hmac'], source }
    throw new AuditError(
      'bad_argument',
      `${label}: the report records no head (no coverage block, and no verdict: it was written without a key)`,
    )
  }
  if (isSeq(doc['last_seq']) && typeof doc['head_hmac'] === 'string') {
    // A verdict of `verify --json` names its first row too (its evidence statement): without it, a
    // verdict of a longer chain of another origin, which the live chain ends before the head of,
    // read "truncated" (nothing else in a verdict can be compared). Unsigned, so it can only make
    // the prior refused (exit 2), never a finding: ../verify/prior-chain.ts.
    const first = firstOfStatement(obj(doc['evidence']))
    return { last_seq: doc['last_seq'], head_hmac: doc['head_hmac'], ...(first ? { first } : {}) }
  }
  throw new AuditError(
    'bad_argument',
    `${label}: neither a verdict (integer last_seq and string head_hmac) nor an audit report`,
  )
}
