// `bin/bijotel report` end to end: the written file validates against the schema (ajv 2020) and
// says what the fixtures expect; the evidence is never overwritten.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { bijotel, ensureBuilt } from '../integrity/testcli'
import { TempChains } from '../integrity/testchain'
import { dbPath, expected, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { reportValidator } from '../testing/report-schema'

let before: Map<string, string>
const tmp = new TempChains()
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
})
afterAll(() => {
  tmp.dispose()
  expect(fingerprintFolder()).toEqual(before)
})

const validate = reportValidator()
const secretArgs = (names: string[]): string[] =>
  names.flatMap((n) => (n === 'raw_text' ? ['--secret-text', SECRETS[n]!] : ['--secret-hex', SECRETS[n]!]))
let k = 0
const outPath = (): string => join(tmp.dir, `report-${++k}.json`)

function readReport(path: string): AuditReport {
  const data = JSON.parse(readFileSync(path, 'utf8')) as AuditReport
  const ok = validate(data)
  expect(validate.errors ?? null).toBeNull()
  expect(ok).toBe(true)
  return data
}

describe('bijotel report writes a schema-valid report', () => {
  for (const name of [
    'clean',
    'rotation',
    'row-deleted',
    'wal-tail',
    'raw-secret',
    'odd-non-json-body',
    'provider-shift',
  ]) {
    it(`${name} with its key set`, () => {
      const exp = expected(name)
      const out = outPath()
      const r = bijotel(['report', '--db', dbPath(name), ...secretArgs(exp.secrets), '-o', out])
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(`report written to ${out}\n`)
      const rep = readReport(out)
      expect(rep.verification?.verdict).toEqual(exp.verify)
      if (name !== 'rotation') expect(rep.integrity.report).toEqual(exp.integrity_window_100)
      else
        expect(rep.integrity.report.rotation_boundaries).toEqual([
          { seq: 161, detail: 'sealing key changed from key #1 to key #2 at seq=161' },
        ])
      expect(rep.evidence.db.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(dbPath(name)))
          .digest('hex'),
      )
      if (name === 'wal-tail') expect(rep.evidence.wal).not.toBeNull()
    })
  }
  it('without a key, --all, to stdout', () => {
    const r = bijotel(['report', '--db', dbPath('burst'), '--all', '-o', '-'])
    expect(r.code).toBe(0)
    const rep = JSON.parse(r.stdout) as AuditReport
    expect(validate(rep)).toBe(true)
    expect(rep.verification).toBeNull()
    expect(rep.integrity.mode).toBe('all')
    expect(rep.integrity.report).toEqual(expected('burst').integrity_window_500)
  })
  it('reads BIJOTEL_HMAC_SECRET like verify does', () => {
    const r = bijotel(['report', '--db', dbPath('clean'), '-o', '-'], {
      BIJOTEL_HMAC_SECRET: SECRETS['primary']!,
    })
    expect((JSON.parse(r.stdout) as AuditReport).verification?.verdict.valid).toBe(true)
  })
  it('threshold flags and --window reach the integrity run', () => {
    const r = bijotel([
      'report',
      '--db',
      dbPath('clean'),
      '--window',
      '50',
      '--burst-threshold',
      '3',
      '--output',
      '-',
    ])
    const rep = JSON.parse(r.stdout) as AuditReport
    expect(rep.integrity.report.window).toBe(50)
    expect(rep.integrity.thresholds.burst_threshold).toBe(3)
  })
  it('overwrites an ordinary existing output file', () => {
    const out = outPath()
    writeFileSync(out, 'old')
    expect(bijotel(['report', '--db', dbPath('clean'), '-o', out]).code).toBe(0)
    readReport(out)
  })
})

describe('bijotel report errors', () => {
  it('refuses to write over the evidence file or its side files (exit 2), evidence untouched', () => {
    for (const target of [dbPath('clean'), `${dbPath('wal-tail')}-wal`]) {
      const db = target.endsWith('-wal') ? dbPath('wal-tail') : target
      const r = bijotel(['report', '--db', db, '-o', target])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/^ERROR: refusing to write the report over the evidence/)
    }
    expect(fingerprintFolder()).toEqual(before)
  })
  it('refuses the evidence through another spelling of its path', () => {
    const copyDir = join(tmp.dir, 'evidence')
    mkdirSync(copyDir)
    const db = join(copyDir, 'chain.db')
    writeFileSync(db, readFileSync(dbPath('clean')))
    const r = bijotel(['report', '--db', db, '-o', join(copyDir, '.', '..', 'evidence', 'chain.db')])
    expect(r.code).toBe(2)
    expect(readFileSync(db).equals(readFileSync(dbPath('clean')))).toBe(true)
  })
  it('unreadable or missing DB: exit 1, one line, no report written', () => {
    for (const db of [dbPath('bad-not-sqlite'), dbPath('bad-truncated-file'), join(tmp.dir, 'nope.db')]) {
      const out = outPath()
      const r = bijotel(['report', '--db', db, '-o', out])
      expect(r.code).toBe(1)
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(existsSync(out)).toBe(false)
    }
  })
  it('argument errors: exit 2', () => {
    expect(bijotel(['report', '--db', dbPath('clean')]).code).toBe(2) // no -o
    expect(bijotel(['report', '-o', '-']).code).toBe(2) // no --db
    expect(bijotel(['report', '--db', dbPath('clean'), '-o', '-', '--window=1']).code).toBe(2)
    expect(bijotel(['report', '--db', dbPath('clean'), '-o', '-', '--all', '--window', '5']).code).toBe(2)
    expect(bijotel(['report', '--db', dbPath('clean'), '-o', '-', '--secret-hex', 'xyz']).code).toBe(2)
    expect(bijotel(['report', '--db', dbPath('clean'), '-o', tmp.dir]).code).toBe(2) // a directory
    expect(
      bijotel(['report', '--db', dbPath('clean'), '-o', join(tmp.dir, 'no', 'such', 'dir', 'r.json')]).code,
    ).toBe(2)
  })
  it('--help', () => {
    const r = bijotel(['report', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('exit codes (report): 0 report written')
    expect(r.stdout).toContain('exit codes (report verify): 0 every field reproduces')
  })
})
