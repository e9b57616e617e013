// Test helper: the `Evidence:` line that verify and integrity text end with, and the `evidence`
// statement of `verify --json` (issue 25). The reference's lines come first and stay byte-identical;
// these helpers check the statement is there and hand back what precedes it.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { expect } from 'vitest'
import type { EvidenceStatement } from '../../../src/shared/custody-types'

/** stdout up to its last line, which must be the `Evidence:` line (returned too). */
export function splitEvidence(stdout: string): { before: string; line: string } {
  expect(stdout.endsWith('\n')).toBe(true)
  const lines = stdout.slice(0, -1).split('\n')
  const line = lines.pop() ?? ''
  expect(line).toMatch(/^Evidence: db=/)
  return { before: lines.length > 0 ? `${lines.join('\n')}\n` : '', line }
}

/** stdout without its final `Evidence:` line (asserted present). */
export function beforeEvidence(stdout: string): string {
  return splitEvidence(stdout).before
}

/** A `verify --json` verdict without its `evidence` statement (asserted present). */
export function verdictOnly(stdout: string): Record<string, unknown> {
  const v = JSON.parse(stdout) as Record<string, unknown>
  expect(v['evidence']).toBeDefined()
  const { evidence: _e, ...rest } = v
  return rest
}

function sha256File(p: string): string {
  return createHash('sha256').update(readFileSync(p)).digest('hex')
}

/** The statement names `dbPath` (and its -wal) with their real sizes and SHA-256, and the rows judged. */
export function expectStatementOf(
  s: EvidenceStatement,
  dbPath: string,
  rows: { entries: number; first_seq: number | null; last_seq: number | null },
): void {
  const real = realpathSync(dbPath)
  expect(realpathSync(s.db.path)).toBe(real)
  expect(s.db.size).toBe(statSync(dbPath).size)
  expect(s.db.sha256).toBe(sha256File(dbPath))
  const wal = `${dbPath}-wal`
  if (existsSync(wal) && statSync(wal).size > 0) {
    expect(s.wal?.size).toBe(statSync(wal).size)
    expect(s.wal?.sha256).toBe(sha256File(wal))
  } else {
    expect(s.wal).toBeNull()
  }
  expect({ entries: s.entries, first_seq: s.first_seq, last_seq: s.last_seq }).toEqual(rows)
}
