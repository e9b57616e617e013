// Issue 25 item 1: the exported report is the next audit's prior. A report taken before a
// truncation, a key holder's rewrite, a deletion or a body edit makes `verify --prior REPORT` fail
// with the right finding; a report as HTML works the same; a signed prior changed after signing is
// refused; a verdict prior and a report without coverage still give the head check. Recovery is
// turned off (--no-recover) in these verifies: the scratch copies still hold the deleted and
// overwritten rows in their free space, which recovery would prove on its own; here the question is
// what the prior alone proves (as for a VACUUMed file, which remembers nothing). One test runs both.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { verdictOnly } from '../testing/evidence'
import { dbPath, fingerprintFolder, FIXTURES, SECRETS } from '../testing/fixtures'
import { deleteRows, editBodyOnly, rewriteFrom, validReport } from '../testing/reports'

const KEY = SECRETS['primary']!
const scratch = scratchDir('custody-prior')
let before: Map<string, string>
let n = 0
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

/** A private copy of clean.db and the report taken of it now (JSON, or HTML). */
function chainWithReport(format: 'json' | 'html' = 'json'): { db: string; report: string } {
  const db = copyFixture('clean', scratch.dir, `chain-${++n}.db`)
  const report = join(scratch.dir, `report-${n}.${format}`)
  const r = bijotel(['report', '--db', db, '--secret-hex', KEY, '--format', format, '-o', report])
  expect(r.code).toBe(0)
  validReport(report)
  return { db, report }
}

function verify(
  db: string,
  prior: string,
  env: Record<string, string> = {},
): { code: number | null; v: Record<string, unknown> } {
  const r = bijotel(
    ['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', prior, '--json'],
    env,
  )
  return { code: r.code, v: verdictOnly(r.stdout) }
}

describe('verify --prior REPORT', () => {
  it('an untouched chain passes, and says every covered row is unchanged', () => {
    const { db, report } = chainWithReport()
    const { code, v } = verify(db, report)
    expect(code).toBe(0)
    expect(v['findings']).toEqual([])
    expect(v['prior_check']).toMatchObject({
      found: true,
      rows_unchanged: true,
      prior: { last_seq: 240, source: { kind: 'report' } },
    })
    const text = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', report])
    expect(text.stdout).toContain(
      'Prior rows: every row the report covered (240 rows, seq 1-240) is still there, unchanged (per an unsigned prior: only what its author wrote)\n',
    )
  })

  it('truncation: the rows after the cut are a truncated finding', () => {
    const { db, report } = chainWithReport()
    deleteRows(db, 'seq > 210')
    // On its own the cut chain is valid: only the prior shows the loss.
    expect(bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY]).code).toBe(0)
    const { code, v } = verify(db, report)
    expect(code).toBe(3)
    expect(v['findings']).toEqual([
      { kind: 'truncated', from_seq: 211, to_seq: 240, count: 30, missing: 30, unsigned_prior: true },
    ])
    expect(v['first_bad_seq']).toBe(211)
    expect(v['prior_check']).toMatchObject({ found: false, rows_unchanged: false })
    // With recovery (the default) the cut rows still in the file's free pages prove it without a
    // prior; with the prior, the same cut is one truncated finding.
    const alone = bijotel(['verify', '--db', db, '--secret-hex', KEY, '--json'])
    expect(alone.code).toBe(3)
    const recovered = verdictOnly(alone.stdout)['findings'] as { kind: string; evidence?: unknown }[]
    expect(recovered.some((f) => f.kind === 'truncated' && f.evidence !== undefined)).toBe(true)
    const both = bijotel(['verify', '--db', db, '--secret-hex', KEY, '--prior', report, '--json'])
    expect(both.code).toBe(3)
    expect(verdictOnly(both.stdout)['findings']).toContainEqual(
      expect.objectContaining({ kind: 'truncated', from_seq: 211, to_seq: 240 }),
    )
  })

  it("a key holder's rewrite (body edited, every later row resealed) is a rewritten finding from the edited row", () => {
    const { db, report } = chainWithReport()
    rewriteFrom(db, Buffer.from(KEY, 'hex'), 100n)
    expect(bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY]).code).toBe(0)
    const envs: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]
    for (const env of envs) {
      const { code, v } = verify(db, report, env)
      expect(code).toBe(3)
      // 240 rows: the digest has one block per seq, so the first changed row is exact.
      expect(v['findings']).toEqual([
        {
          kind: 'rewritten',
          from_seq: 100,
          to_seq: 240,
          count: 141,
          against_prior: true,
          unsigned_prior: true,
        },
      ])
      expect(v['first_bad_seq']).toBe(100)
      expect((v['prior_check'] as { rows_detail: string }).rows_detail).toContain(
        'first change found in seq 100-240 (rewritten)',
      )
    }
    const text = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', report])
    expect(text.stderr).toBe(
      'Chain BROKEN at seq=100: rewritten: differs from what the prior report recorded for these seqs (resealed by a key holder, or replaced) (per an unsigned prior)\n',
    )
  })

  it('a body edited without the key: body_hash_mismatch, and the covered rows themselves are unchanged', () => {
    const { db, report } = chainWithReport()
    editBodyOnly(db, 50n)
    const { code, v } = verify(db, report)
    expect(code).toBe(3)
    expect(v['findings']).toEqual([{ kind: 'body_hash_mismatch', from_seq: 50, to_seq: 50, count: 1 }])
    expect(v['prior_check']).toMatchObject({ found: true, rows_unchanged: true })
  })

  it('a row deleted and the rest resealed: deleted at the row, rewritten after it', () => {
    const { db, report } = chainWithReport()
    deleteRows(db, 'seq = 120')
    rewriteFrom(db, Buffer.from(KEY, 'hex'), 121n, false)
    const { code, v } = verify(db, report)
    expect(code).toBe(3)
    expect(v['findings']).toEqual([
      { kind: 'seq_gap', from_seq: 121, to_seq: 121, count: 1, missing: 1 },
      { kind: 'deleted', from_seq: 120, to_seq: 120, count: 1, against_prior: true, unsigned_prior: true },
      {
        kind: 'rewritten',
        from_seq: 121,
        to_seq: 240,
        count: 120,
        against_prior: true,
        unsigned_prior: true,
      },
    ])
    expect(v['first_bad_seq']).toBe(120)
  })

  it('the HTML report is a prior too', () => {
    const { db, report } = chainWithReport('html')
    deleteRows(db, 'seq > 230')
    const { code, v } = verify(db, report)
    expect(code).toBe(3)
    expect(v['findings']).toEqual([
      { kind: 'truncated', from_seq: 231, to_seq: 240, count: 10, missing: 10, unsigned_prior: true },
    ])
  })

  it('a signed prior changed after signing is refused (exit 2); intact, it names its signer', () => {
    const { db } = chainWithReport()
    const keys = join(scratch.dir, 'keys')
    expect(bijotel(['keygen', '--output-dir', keys]).code).toBe(0)
    const report = join(scratch.dir, 'signed.json')
    const w = bijotel([
      'report',
      '--db',
      db,
      '--secret-hex',
      KEY,
      '--sign-key',
      join(keys, 'bijotel_private.pem'),
      '-o',
      report,
    ])
    expect(w.code).toBe(0)
    const signed = validReport(report)
    const { v } = verify(db, report)
    expect(v['prior_check']).toMatchObject({
      prior: { source: { kind: 'report', signed_by: signed.signature!.fingerprint } },
    })
    const forged = JSON.parse(readFileSync(report, 'utf8')) as AuditReport
    forged.coverage!.rows.head_hmac = '0'.repeat(64)
    writeFileSync(report, JSON.stringify(forged, null, 2))
    const r = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', report])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^bijotel verify: error: --prior .*Ed25519 signature does NOT match the report/)
  })

  it('a report without coverage (schema 1.0) and a verdict still give the head check', () => {
    const { db, report } = chainWithReport()
    const old = JSON.parse(readFileSync(report, 'utf8')) as Record<string, unknown>
    delete old['coverage']
    old['schema_version'] = '1.0.0'
    const oldPath = join(scratch.dir, 'old.json')
    writeFileSync(oldPath, JSON.stringify(old))
    deleteRows(db, 'seq > 200')
    const { code, v } = verify(db, oldPath)
    expect(code).toBe(3)
    expect(v['findings']).toEqual([
      { kind: 'truncated', from_seq: 201, to_seq: 240, count: 40, missing: 40, unsigned_prior: true },
    ])
    expect((v['prior_check'] as Record<string, unknown>)['rows_unchanged']).toBeUndefined()
    const verdict = verify(dbPath('truncated-tail'), join(FIXTURES, 'truncated-tail.prior-verify.json'))
    expect(verdict.v['findings']).toEqual([
      { kind: 'truncated', from_seq: 211, to_seq: 240, count: 30, missing: 30, unsigned_prior: true },
    ])
    expect(verdict.v['prior_check']).toEqual({
      prior: { last_seq: 240, head_hmac: expect.any(String), signed: false },
      found: false,
      detail:
        'chain truncated: the prior head seq=240 is gone; the chain now ends at seq=210 (per an unsigned prior: only what its author wrote)',
    })
  })

  it('a file that is neither is one line, exit 2', () => {
    const p = join(scratch.dir, 'nothing.json')
    writeFileSync(p, '{"hello": 1}')
    const r = bijotel(['verify', '--db', dbPath('clean'), '--no-recover', '--secret-hex', KEY, '--prior', p])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe(
      `bijotel verify: error: --prior ${p}: neither a verdict (integer last_seq and string head_hmac) nor an audit report`,
    )
  })
})
