// Reading an exported report back (issue 25): the JSON file, or the HTML page that embeds the same
// JSON in `<script type="application/json" id="bijotel-report">`; and the prior head a report (or an
// earlier `verify --json` verdict) gives the next audit.
import type { RowsDigest } from '../../shared/custody-types'
import { REPORT_SCHEMA_ID } from '../../shared/report-types'
import type { PriorHead, PriorSource } from '../../shared/verify-types'
import { readClientFile, type OpenPolicy } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { ROWS_DIGEST_ALGORITHM } from '../chain/rows-digest'
import { checkReportSignature } from './sign'

/** Reports above this are refused in one line (a real one is well under a megabyte per 10k findings). */
export const MAX_REPORT_BYTES = 256 * 1024 * 1024

export const EMBED_ID = 'bijotel-report'
const EMBEDDED = new RegExp(`<script type="application/json" id="${EMBED_ID}">([\\s\\S]*?)</script>`)

export interface ReadReport {
  doc: Record<string, unknown>
  format: 'json' | 'html'
}

/** The JSON document of a report or verdict given as text (JSON, or a report's HTML page). */
export function parseReportText(text: string, label: string): ReadReport {
  const body = text.replace(/^\uFEFF/, '')
  const html = /^\s*</.test(body)
  let json = body
  if (html) {
    const m = EMBEDDED.exec(body)
    if (!m)
      throw new AuditError('bad_argument', `${label}: an HTML file without an embedded report (${EMBED_ID})`)
    json = m[1]!
  }
  let doc: unknown
  try {
    doc = JSON.parse(json)
  } catch (e) {
    throw new AuditError('bad_argument', `${label}: not JSON (${oneLine(e)})`)
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new AuditError('bad_argument', `${label}: not a JSON object`)
  return { doc: doc as Record<string, unknown>, format: html ? 'html' : 'json' }
}

/**
 * A report or verdict file: opened and read once through src/main/base/client-file.ts (under the
 * open roots when `policy` is given), then parsed. The bytes are UTF-8 text (a BOM is dropped).
 */
export function readReportFile(path: string, label = 'report', policy?: OpenPolicy): ReadReport {
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
  return parseReportText(bytes.toString('utf8'), label)
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
      return { last_seq: rows.last_seq, head_hmac: rows.head_hmac, rows, source }
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
  if (isSeq(doc['last_seq']) && typeof doc['head_hmac'] === 'string')
    return { last_seq: doc['last_seq'], head_hmac: doc['head_hmac'] }
  throw new AuditError(
    'bad_argument',
    `${label}: neither a verdict (integer last_seq and string head_hmac) nor an audit report`,
  )
}
