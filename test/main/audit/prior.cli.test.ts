// Issue 25 item 1: the exported report is the next audit's prior. A report taken before a
// truncation, a key holder's rewrite, a deletion or a body edit makes `verify --prior REPORT` fail
// with the right finding; a report as HTML works the same; a signed prior changed after signing is
// refused; a verdict prior and a report without coverage still give the head check. Recovery is
// turned off (--no-recover) in these verifies: the scratch copies still hold the deleted and
// overwritten rows in their free space, which recovery would prove on its own; here the question is
// what the prior alone proves (as for a VACUUMed file, which remembers nothing). One test runs both.
import { createHash } from 'node:crypto'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import {
  appendRows,
  copyFixture,
  openScratch,
  readRows,
  updateRow,
  scratchDir,
  spanRows,
  writeChain,
  type ChainRow,
} from '../reliability/chainkit'
import { RowsDigester } from '../../../src/main/chain/rows-digest'
import { OTHER_CHAIN } from '../../../src/main/verify/prior-chain'
import { bijotel, ensureBuilt } from '../testing/cli'
import { verdictOnly } from '../testing/evidence'
import { dbPath, fingerprintFolder, FIXTURES, SECRETS } from '../testing/fixtures'
import { deleteRows, editBodyOnly, editedBody, rewriteFrom, validReport } from '../testing/reports'
import { mulberry32 } from '../testing/prng'

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
  it('an untouched chain passes, and says exactly what of the covered rows was compared', () => {
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
      'Prior rows: every row the report covered (240 rows, seq 1-240) is still there with the seq and hmac_hash it recorded (the report records only seq and hmac_hash, so it cannot tell a body, prev_hash or canonical_hash edit that kept the hmac_hash: the body hash and HMAC checks of this verify are what find those) (per an unsigned prior: only what its author wrote)\n',
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

  it('generated edits that keep the hmac_hash: the prior never says "unchanged", the findings name the row (issue 35)', () => {
    const rnd = mulberry32(35)
    const fields = ['canonical_body', 'canonical_hash', 'prev_hash'] as const
    for (let i = 0; i < 6; i++) {
      const { db, report } = chainWithReport()
      const seq = 2 + Math.floor(rnd() * 238)
      const field = fields[i % fields.length]!
      const h = openScratch(db)
      try {
        const row = readRows(h).find((r) => r.seq === BigInt(seq))!
        const value =
          field === 'canonical_body'
            ? editedBody(Buffer.from(row.canonical_body as Buffer))
            : // Another 64-hex value: the first character turned.
              (row[field] as string).replace(/^./, (c) => (c === '0' ? '1' : '0'))
        updateRow(h, BigInt(seq), { [field]: value })
      } finally {
        h.close()
      }
      const { code, v } = verify(db, report)
      expect(code, `${field} at ${seq}`).toBe(3)
      const pc = v['prior_check'] as { rows_detail: string; detail: string }
      expect(pc.rows_detail).not.toMatch(/unchanged/)
      expect(pc.detail).not.toMatch(/unchanged/)
      expect(pc.rows_detail).toContain('seq and hmac_hash')
      expect(pc.rows_detail).toContain('cannot tell')
      const findings = v['findings'] as { kind: string; from_seq: number; to_seq: number }[]
      expect(findings.some((f) => f.from_seq <= seq && seq <= f.to_seq)).toBe(true)
      const text = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', report])
      expect(text.stdout).not.toMatch(/^Prior.*unchanged/m)
    }
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
        "chain truncated: the prior head seq=240 is gone; the chain now ends at seq=210; this prior records its head alone (no first row, no rows digest): nothing in it ties it to this chain, so this is its author's word that they saw this chain reach that seq — a prior of another chain under the same key, longer than seq=210, reads the same (per an unsigned prior: only what its author wrote)",
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

// Issue 39 ("Priors"): a prior must be of this chain. Generators of priors of other chains (another
// chain under the same key, the same rows under another key, this chain's own report with every
// hmac_hash changed), as reports and as verdicts, are refused in one line; honest priors (the same
// chain, a head later extended, a tail then cut by an attacker, the truncated-tail fixture) are
// accepted, and the cut is still the truncated finding.
const OTHER = 'ab'.repeat(32)

function reportOf(db: string, key: string, format: 'json' | 'html' = 'json'): string {
  const out = join(scratch.dir, `prior-${++n}.${format}`)
  const r = bijotel(['report', '--db', db, '--secret-hex', key, '--format', format, '-o', out])
  expect(r.code).toBe(0)
  return out
}

function verdictOf(db: string, key: string): string {
  const out = join(scratch.dir, `verdict-${++n}.json`)
  const r = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', key, '--json'])
  expect(r.code).toBe(0)
  writeFileSync(out, JSON.stringify(verdictOnly(r.stdout)))
  return out
}

/** This chain's own report, its rows digest recomputed with every hmac_hash changed by `change`. */
function everyMacChanged(db: string, change: (mac: string) => string): string {
  const report = JSON.parse(readFileSync(reportOf(db, KEY), 'utf8')) as AuditReport
  const rows = readScratchRows(db)
  const d = new RowsDigester(report.coverage!.rows.block_size)
  for (const r of rows) d.push(Number(r.seq), r.seq.toString(), change(String(r.hmac_hash)))
  report.coverage!.rows = d.finish()
  const out = join(scratch.dir, `changed-${++n}.json`)
  writeFileSync(out, JSON.stringify(report))
  return out
}

function readScratchRows(db: string): ChainRow[] {
  const h = openScratch(db)
  try {
    return readRows(h)
  } finally {
    h.close()
  }
}

type Prior = { name: string; prior: string }

// Priors of other chains, in groups (each group is one test: every prior costs three CLI runs).
const FOREIGN: Record<string, () => Prior[]> = {
  // Another chain under the same key: clean.db rewritten from genesis (bodies edited, resealed).
  'same key, resealed from genesis': () => {
    const resealed = copyFixture('clean', scratch.dir, `foreign-${++n}.db`)
    rewriteFrom(resealed, Buffer.from(KEY, 'hex'), 1n)
    return [
      { name: 'same key, resealed from genesis (report)', prior: reportOf(resealed, KEY) },
      { name: 'same key, resealed from genesis (html)', prior: reportOf(resealed, KEY, 'html') },
      { name: 'same key, resealed from genesis (verdict)', prior: verdictOf(resealed, KEY) },
    ]
  },
  // Freshly written chains shorter and longer than the live one.
  'same key, fresh chains': () => {
    const out: Prior[] = []
    for (const rows of [1, 50, 240, 300]) {
      const db = join(scratch.dir, `fresh-${++n}.db`)
      writeChain(db, Buffer.from(KEY, 'hex'), spanRows(rows, 1_700_000_000_000_000_000n + BigInt(rows)))
      out.push({ name: `same key, a fresh chain of ${rows} rows (report)`, prior: reportOf(db, KEY) })
      if (rows <= 240)
        out.push({ name: `same key, a fresh chain of ${rows} rows (verdict)`, prior: verdictOf(db, KEY) })
    }
    return out
  },
  // The same rows sealed under another key.
  'another key': () => {
    const otherKey = copyFixture('clean', scratch.dir, `other-key-${++n}.db`)
    rewriteFrom(otherKey, Buffer.from(OTHER, 'hex'), 1n, false)
    return [
      { name: 'another key (report)', prior: reportOf(otherKey, OTHER) },
      { name: 'another key (verdict)', prior: verdictOf(otherKey, OTHER) },
    ]
  },
  // This chain's own report with every hmac_hash changed.
  'own report, every hmac_hash changed': () => {
    const live = copyFixture('clean', scratch.dir, `own-${++n}.db`)
    const changes: ((m: string) => string)[] = [
      (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0'),
      (m) => m.toUpperCase(),
      (m) => createHash('sha256').update(m).digest('hex'),
      (m) => ` ${m}`,
    ]
    return changes.map((c, i) => ({
      name: `own report, every hmac_hash changed (${i})`,
      prior: everyMacChanged(live, c),
    }))
  },
}

describe('a prior must be of this chain (issue 39)', () => {
  it.each(Object.keys(FOREIGN))(
    'priors of other chains (%s) are refused in one line, exit 2, for each reader',
    (group) => {
      const db = copyFixture('clean', scratch.dir, `live-${++n}.db`)
      for (const { name, prior } of FOREIGN[group]!()) {
        const envs: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]
        for (const env of envs) {
          const r = bijotel(['verify', '--db', db, '--secret-hex', KEY, '--prior', prior, '--json'], env)
          expect({ name, code: r.code, stdout: r.stdout }).toEqual({ name, code: 2, stdout: '' })
          expect({ name, stderr: r.stderr.split('\n')[0] }).toEqual({
            name,
            stderr: `bijotel verify: error: --prior ${prior}: ${OTHER_CHAIN}`,
          })
        }
        const keyless = bijotel(['verify', '--db', db, '--keyless', '--prior', prior])
        expect({ name, code: keyless.code }).toEqual({ name, code: 2 })
      }
    },
  )

  it('honest priors are accepted: the same chain, and a head later extended', () => {
    const db = copyFixture('clean', scratch.dir, `honest-${++n}.db`)
    const priors = [reportOf(db, KEY), reportOf(db, KEY, 'html'), verdictOf(db, KEY)]
    for (const p of priors) {
      const { code, v } = verify(db, p)
      expect(code).toBe(0)
      expect(v['prior_check']).toMatchObject({ found: true })
    }
    const h = openScratch(db)
    try {
      const head = String(readRows(h).at(-1)!.hmac_hash)
      appendRows(h, Buffer.from(KEY, 'hex'), spanRows(7, 1_800_000_000_000_000_000n), head)
    } finally {
      h.close()
    }
    for (const p of priors) {
      const { code, v } = verify(db, p)
      expect(code).toBe(0)
      expect(v['last_seq']).toBe(247)
      expect(v['prior_check']).toMatchObject({ found: true })
    }
  })

  it('a prior of a chain whose tail was then cut is accepted, and the cut is the truncated finding', () => {
    for (const cut of [1, 2, 17, 120, 239]) {
      const db = copyFixture('clean', scratch.dir, `cut-${++n}.db`)
      const priors = [reportOf(db, KEY), reportOf(db, KEY, 'html'), verdictOf(db, KEY)]
      deleteRows(db, `seq > ${cut}`)
      for (const p of priors) {
        const { code, v } = verify(db, p)
        expect({ cut, p, code }).toEqual({ cut, p, code: 3 })
        expect(v['findings']).toEqual([
          {
            kind: 'truncated',
            from_seq: cut + 1,
            to_seq: 240,
            count: 240 - cut,
            missing: 240 - cut,
            unsigned_prior: true,
          },
        ])
      }
    }
    const fixture = verify(dbPath('truncated-tail'), join(FIXTURES, 'truncated-tail.prior-verify.json'))
    expect(fixture.code).toBe(3)
    expect(fixture.v['findings']).toEqual([
      { kind: 'truncated', from_seq: 211, to_seq: 240, count: 30, missing: 30, unsigned_prior: true },
    ])
  })

  it('a verdict prior whose head row was since changed is still taken when the next live row links to it', () => {
    for (const head of [1, 60, 239]) {
      const db = copyFixture('clean', scratch.dir, `linked-${++n}.db`)
      const out = join(scratch.dir, `linked-${n}.json`)
      const r = bijotel([
        'verify',
        '--db',
        db,
        '--no-recover',
        '--secret-hex',
        KEY,
        '--range',
        `1:${head}`,
        '--json',
      ])
      expect(r.code).toBe(0)
      writeFileSync(out, JSON.stringify(verdictOnly(r.stdout)))
      // The head row's stored hmac_hash edited without the key: the row after still links to the prior head.
      const h = openScratch(db)
      try {
        h.prepare('UPDATE chain SET hmac_hash = ? WHERE seq = ?').run('f'.repeat(64), BigInt(head))
      } finally {
        h.close()
      }
      const { code, v } = verify(db, out)
      expect({ head, code }).toEqual({ head, code: 3 })
      expect(v['first_bad_seq']).toBe(head)
      expect(v['prior_check']).toMatchObject({ found: false })
    }
  })

  it('a long chain (blocks of several rows) cut inside a block is still accepted', () => {
    const db = join(scratch.dir, `long-${++n}.db`)
    writeChain(db, Buffer.from(KEY, 'hex'), spanRows(3000))
    const report = JSON.parse(readFileSync(reportOf(db, KEY), 'utf8')) as AuditReport
    expect(report.coverage!.rows.block_size).toBeGreaterThan(2)
    const prior = join(scratch.dir, `long-${n}.json`)
    writeFileSync(prior, JSON.stringify(report))
    const cutDb = join(scratch.dir, `long-cut-${n}.db`)
    for (const cut of [2, 1501]) {
      copyFileSync(db, cutDb)
      deleteRows(cutDb, `seq > ${cut}`)
      const { code, v } = verify(cutDb, prior)
      expect({ cut, code }).toEqual({ cut, code: 3 })
      expect(v['findings']).toContainEqual(
        expect.objectContaining({ kind: 'truncated', from_seq: cut + 1, to_seq: 3000 }),
      )
    }
  })
})
