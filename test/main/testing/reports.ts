// Test helper: every report the custody tests write is validated against the JSON Schema
// (schema/integrity-report.schema.json), and chains are tampered with on private copies only.
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { parseReportText } from '../../../src/main/custody/report-file'
import { reportValidator } from './report-schema'
import { openScratch, readRows, seal, sha256, updateRow } from '../reliability/chainkit'

const validate = reportValidator()

/** The report in a file (JSON or the HTML page's embedded JSON), asserted schema-valid. */
export function validReport(path: string): AuditReport {
  const { doc } = parseReportText(readFileSync(path, 'utf8'), path)
  const ok = validate(doc)
  expect(validate.errors ?? null, JSON.stringify(validate.errors, null, 2)).toBeNull()
  expect(ok).toBe(true)
  return doc as unknown as AuditReport
}

/** A body changed without breaking its JSON or the columns (the cost attribute's first digit). */
export function editedBody(body: Buffer): Buffer {
  const s = body.toString('utf8')
  const m = /"bijotel\.cost_usd":(\d)/.exec(s)
  if (!m) throw new Error('no cost attribute to edit')
  const digit = m[1] === '9' ? '8' : '9'
  return Buffer.from(
    s.slice(0, m.index) + `"bijotel.cost_usd":${digit}` + s.slice(m.index + m[0].length),
    'utf8',
  )
}

/**
 * What a key holder can do: edit row `seq`'s body (if `edit`), then recompute its hash and reseal
 * every row from `seq` on, so the chain verifies again on its own.
 */
export function rewriteFrom(path: string, key: Buffer, seq: bigint, edit = true): void {
  const db = openScratch(path)
  try {
    const rows = readRows(db)
    let prev: string | null = null
    for (const r of rows) {
      if (r.seq < seq) {
        prev = String(r.hmac_hash)
        continue
      }
      let body: Buffer = Buffer.from(r.canonical_body as Buffer)
      if (edit && r.seq === seq) body = editedBody(body)
      const ch = sha256(body)
      const p = prev ?? String(r.prev_hash)
      const mac = seal(key, p, ch)
      updateRow(db, r.seq, { canonical_body: body, canonical_hash: ch, prev_hash: p, hmac_hash: mac })
      prev = mac
    }
  } finally {
    db.close()
  }
}

/** Delete rows matching a WHERE clause on a private copy. */
export function deleteRows(path: string, where: string): void {
  const db = openScratch(path)
  try {
    db.exec(`DELETE FROM chain WHERE ${where}`)
  } finally {
    db.close()
  }
}

/** Change row `seq`'s body alone (no hash, no seal): what an outsider without the key can do. */
export function editBodyOnly(path: string, seq: bigint): void {
  const db = openScratch(path)
  try {
    const row = readRows(db).find((r) => r.seq === seq)!
    updateRow(db, seq, { canonical_body: editedBody(Buffer.from(row.canonical_body as Buffer)) })
  } finally {
    db.close()
  }
}
