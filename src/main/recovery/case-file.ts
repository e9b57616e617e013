// Writing recovered rows for the case file: each body as it was recovered, and the rows as CSV and
// JSON Lines. Never into the evidence's folder (or below it), never over an existing file.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, isAbsolute } from 'node:path'
import type { RecoveredRow } from '../../shared/recovery-types'
import { writeTarget } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { csvCell } from '../base/csv'
import { jsonLine } from '../base/json-line'

/** Refuse an output folder that is the evidence's folder or inside it. */
export function checkOutDir(out: string, db: string): string {
  const target = writeTarget(out)
  const evidenceDir = dirname(writeTarget(db))
  const rel = relative(evidenceDir, target)
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
    throw new AuditError('bad_argument', `refusing to write into the evidence's folder: ${out}`)
  return target
}

const CSV_COLUMNS = [
  'seq',
  'seq_origin',
  'status',
  'uncommitted_only',
  'proven',
  'key_index',
  'body_ok',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
  'links_to',
  'links_to_seq',
  'timestamp_ns',
  'file',
  'kind',
  'page',
  'offset',
  'frame',
  'salt',
  'sources',
  'body_file',
] as const

/** A cell of recovered.csv: RFC 4180 quoting, formula starts neutralised (base/csv.ts, OWASP). */
function cellOf(v: unknown): string {
  return csvCell(v === null || v === undefined ? '' : String(v))
}

export interface CaseFileRow extends RecoveredRow {
  uncommitted_only: boolean
}

/** Write the case file into `dir` (created if missing; must be empty). Returns the files written. */
export function writeCaseFile(dir: string, db: string, rows: CaseFileRow[]): string[] {
  const target = checkOutDir(dir, db)
  try {
    mkdirSync(target, { recursive: true })
    if (readdirSync(target).length > 0)
      throw new AuditError('bad_argument', `--out ${dir} is not empty: give a new or empty folder`)
    mkdirSync(join(target, 'bodies'))
    const written: string[] = []
    const write = (name: string, data: string | Buffer): void => {
      writeFileSync(join(target, name), data, { flag: 'wx', mode: 0o644 })
      written.push(join(target, name))
    }
    const lines: string[] = []
    const csv = [CSV_COLUMNS.join(',')]
    rows.forEach((r, i) => {
      const seq = r.seq_exact ?? (r.seq === null ? 'unknown' : String(r.seq))
      const bodyFile =
        r.body_b64 !== undefined
          ? `bodies/${String(i + 1).padStart(4, '0')}-seq-${seq}-${r.hmac_hash.slice(0, 16)}.body`
          : null
      if (bodyFile) write(bodyFile, Buffer.from(r.body_b64!, 'base64'))
      const { body_b64: _body, ...rest } = r
      lines.push(jsonLine({ ...rest, body_file: bodyFile }))
      const s = r.source
      const cells: Record<(typeof CSV_COLUMNS)[number], unknown> = {
        seq,
        seq_origin: r.seq_origin,
        status: r.status,
        uncommitted_only: r.uncommitted_only,
        proven: r.key_index !== null,
        key_index: r.key_index,
        body_ok: r.body_ok,
        canonical_hash: r.canonical_hash,
        prev_hash: r.prev_hash,
        hmac_hash: r.hmac_hash,
        links_to: r.links_to.to,
        links_to_seq: r.links_to.seq,
        timestamp_ns: r.timestamp_ns,
        file: s.file,
        kind: s.kind,
        page: s.page,
        offset: s.offset,
        frame: s.frame,
        salt: s.salt,
        sources: r.sources.length,
        body_file: bodyFile,
      }
      csv.push(CSV_COLUMNS.map((c) => cellOf(cells[c])).join(','))
    })
    write('recovered.jsonl', lines.map((l) => l + '\n').join(''))
    write('recovered.csv', csv.join('\n') + '\n')
    return written
  } catch (e) {
    if (e instanceof AuditError) throw e
    throw new AuditError('bad_argument', `cannot write the case file to ${dir}: ${oneLine(e)}`)
  }
}
