// Issue 25 item 4: `bijotel report verify` reproduces every fixture's signed report (replay checks
// included) and fails, naming the field, when the report, the chain or its -wal is changed by one
// byte, or when the signature or the key is swapped.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReportCheckResult } from '../../../src/shared/custody-types'
import type { AuditReport } from '../../../src/shared/report-types'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, expected, fingerprintFolder, FIXTURES, fixtureNames, SECRETS } from '../testing/fixtures'
import { validReport } from '../testing/reports'

const scratch = scratchDir('custody-verify')
const keys = join(scratch.dir, 'keys')
const attacker = join(scratch.dir, 'attacker')
const PRIV = join(keys, 'bijotel_private.pem')
const PUB = join(keys, 'bijotel_public.pem')
let before: Map<string, string>
let n = 0
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  expect(bijotel(['keygen', '--output-dir', keys]).code).toBe(0)
  expect(bijotel(['keygen', '--output-dir', attacker]).code).toBe(0)
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

const secretArgs = (names: string[]): string[] =>
  names.flatMap((s) => (s === 'raw_text' ? ['--secret-text', SECRETS[s]!] : ['--secret-hex', SECRETS[s]!]))

interface Case {
  name: string
  secrets: string[]
  replays: { seq: number; file: string }[]
}

function cases(): Case[] {
  const withExpected = fixtureNames().map((name) => {
    const e = expected(name)
    return { name, secrets: e.secrets, replays: e.replay ?? [] }
  })
  const recovery = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.recovery.json'))
    .map((f) => {
      const name = f.slice(0, -'.recovery.json'.length)
      const r = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as { secrets: string[] }
      return { name, secrets: r.secrets, replays: [] }
    })
  return [...withExpected, ...recovery]
}

function writeReport(db: string, args: string[], format = 'json'): string {
  const out = join(scratch.dir, `report-${++n}.${format}`)
  const r = bijotel(['report', '--db', db, '--format', format, '-o', out, ...args])
  expect(r.stderr).toBe(`report written to ${out}\n`)
  expect(r.code).toBe(0)
  validReport(out)
  return out
}

function check(report: string, db: string, args: string[]): { code: number | null; r: ReportCheckResult } {
  const res = bijotel(['report', 'verify', report, '--db', db, '--json', ...args])
  expect(res.stderr).toBe('')
  return { code: res.code, r: JSON.parse(res.stdout) as ReportCheckResult }
}

const failing = (r: ReportCheckResult): string[] =>
  r.fields.filter((f) => f.status !== 'reproduces' && !f.informational).map((f) => f.field)

describe('report verify reproduces every fixture', () => {
  for (const c of cases()) {
    it(`${c.name} (${c.secrets.join('+')}${c.replays.length ? `, ${c.replays.length} replay checks` : ''})`, () => {
      const replay = c.replays.flatMap((r) => ['--replay', `${r.seq}=${join(FIXTURES, r.file)}`])
      const report = writeReport(dbPath(c.name), [...secretArgs(c.secrets), '--sign-key', PRIV, ...replay])
      const doc = validReport(report)
      expect(doc.replay_checks).toHaveLength(c.replays.length)
      expect(doc.signature?.fingerprint).toMatch(/^[0-9a-f]{16}$/)
      const { code, r } = check(report, dbPath(c.name), [...secretArgs(c.secrets), '--public-key', PUB])
      expect(failing(r)).toEqual([])
      expect(r.signature).toMatchObject({ status: 'valid', key: 'provided' })
      expect(r.ok).toBe(true)
      expect(code).toBe(0)
      const fields = r.fields.map((f) => f.field)
      expect(fields).toEqual(
        expect.arrayContaining([
          'evidence.db.sha256',
          'verification.verdict.findings',
          'integrity.report.sequence_gaps',
          'coverage.rows.digest',
          ...c.replays.map((_r, i) => `replay_checks[${i}].result`),
        ]),
      )
      if (c.name.startsWith('rec-live') || c.name === 'wal-tail')
        expect(fields).toContain('evidence.wal.sha256')
      // The files are searched again: the recovery block is compared too.
      expect(fields).toEqual(expect.arrayContaining(['recovery.summary.proven', 'recovery.rows']))
    })
  }

  it('a recovered row changed in an unsigned report: recovery.rows is named', () => {
    const args = secretArgs(['primary'])
    const report = writeReport(dbPath('rec-deleted-middle'), args)
    const doc = JSON.parse(readFileSync(report, 'utf8')) as AuditReport
    expect(doc.recovery.rows.length).toBeGreaterThan(0)
    const row = doc.recovery.rows[0]!
    row.hmac_hash = row.hmac_hash.replace(/^./, (c) => (c === '0' ? '1' : '0'))
    const tampered = join(scratch.dir, 'recovered-row.json')
    writeFileSync(tampered, JSON.stringify(doc, null, 2))
    const { code, r } = check(tampered, dbPath('rec-deleted-middle'), args)
    expect(code).toBe(1)
    expect(failing(r)).toEqual(['recovery.rows'])
  })
})

describe('the HTML report', () => {
  it('verifies like its JSON; a hostile path cannot leave the embedded JSON or inject markup', () => {
    const hostile = join(scratch.dir, 'x</script><img src=y onerror=alert(1)> \u2028')
    mkdirSync(hostile, { recursive: true })
    const db = copyFixture('clean', hostile, 'chain.db')
    const html = writeReport(db, [...secretArgs(['primary']), '--sign-key', PRIV], 'html')
    const page = readFileSync(html, 'utf8')
    expect(page.match(/<\/script>/g)).toHaveLength(1)
    expect(page).not.toContain('<img')
    expect(page).toMatch(/^<!doctype html>\n/)
    expect(page).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-/,
    )
    expect(validReport(html).evidence.db.path).toBe(db)
    const { code, r } = check(html, db, [...secretArgs(['primary']), '--public-key', PUB])
    expect(failing(r)).toEqual([])
    expect(r).toMatchObject({ ok: true, format: 'html', signature: { status: 'valid' } })
    expect(code).toBe(0)
  })
})

describe('report verify fails, naming the field', () => {
  const KEY = secretArgs(['primary'])

  it('a report changed by one byte: the field, and the signature', () => {
    const report = writeReport(dbPath('clean'), [...KEY, '--sign-key', PRIV])
    const text = readFileSync(report, 'utf8')
    const doc = JSON.parse(text) as AuditReport
    const sha = doc.evidence.db.sha256
    const flipped = sha.slice(0, -1) + (sha.endsWith('0') ? '1' : '0')
    const tampered = join(scratch.dir, 'one-byte.json')
    writeFileSync(tampered, text.replace(`"sha256": "${sha}"`, `"sha256": "${flipped}"`))
    expect(Buffer.compare(readFileSync(tampered), readFileSync(report))).not.toBe(0)
    const { code, r } = check(tampered, dbPath('clean'), [...KEY, '--public-key', PUB])
    expect(code).toBe(1)
    expect(failing(r)).toEqual(['evidence.db.sha256'])
    expect(r.signature.status).toBe('invalid')
    expect(r.signature.detail).toMatch(/signature does NOT match the report/)
    const textOut = bijotel([
      'report',
      'verify',
      tampered,
      '--db',
      dbPath('clean'),
      ...KEY,
      '--public-key',
      PUB,
    ])
    expect(textOut.code).toBe(1)
    expect(textOut.stdout).toMatch(/^Report: .*\nAbout: THIS CHAIN — .*\nSignature: INVALID — /)
    expect(textOut.stdout).toContain(`  DIFFERS     evidence.db.sha256: report ${flipped} | now ${sha}\n`)
    expect(textOut.stderr).toMatch(
      /^Report verify FAILED: 1 of \d+ fields do not reproduce: evidence.db.sha256; signature INVALID\n$/,
    )
  })

  it('an unsigned report changed by one byte: the field', () => {
    const report = writeReport(dbPath('clean'), KEY)
    const tampered = join(scratch.dir, 'unsigned-one-byte.json')
    writeFileSync(tampered, readFileSync(report, 'utf8').replace('"entries": 240,', '"entries": 241,'))
    const { code, r } = check(tampered, dbPath('clean'), KEY)
    expect(code).toBe(1)
    expect(failing(r)).toEqual(['chain.entries'])
    expect(r.signature.status).toBe('unsigned')
  })

  it('the chain changed by one byte: its hash, and what the byte broke', () => {
    const db = copyFixture('clean', scratch.dir, 'one-byte.db')
    const report = writeReport(db, KEY)
    const bytes = readFileSync(db)
    // One byte of a body ('Answer 99' → 'answer 99'): the file's hash and that row's body hash move.
    const at = bytes.indexOf(Buffer.from('Answer 99:'))
    expect(at).toBeGreaterThan(0)
    bytes[at] = 'a'.charCodeAt(0)
    writeFileSync(db, bytes)
    const { code, r } = check(report, db, KEY)
    expect(code).toBe(1)
    const f = failing(r)
    expect(f).toContain('evidence.db.sha256')
    expect(f).toContain('coverage.statement.db.sha256')
    expect(f).toContain('verification.verdict.findings')
    expect(f).not.toContain('evidence.db.size')
  })

  it('the -wal changed by one byte: its hash', () => {
    const db = copyFixture('wal-tail', scratch.dir, 'wal-one-byte.db')
    const report = writeReport(db, KEY)
    const wal = readFileSync(`${db}-wal`)
    wal[wal.length - 100] = wal[wal.length - 100]! ^ 0xff
    writeFileSync(`${db}-wal`, wal)
    const { code, r } = check(report, db, KEY)
    expect(code).toBe(1)
    expect(failing(r)).toContain('evidence.wal.sha256')
    expect(failing(r)).not.toContain('evidence.db.sha256')
  })

  it('a signature swapped in from another report', () => {
    const a = writeReport(dbPath('clean'), [...KEY, '--sign-key', PRIV])
    const b = writeReport(dbPath('burst'), [...KEY, '--sign-key', PRIV])
    const docA = JSON.parse(readFileSync(a, 'utf8')) as AuditReport
    const docB = JSON.parse(readFileSync(b, 'utf8')) as AuditReport
    docA.signature = docB.signature!
    const swapped = join(scratch.dir, 'swapped-signature.json')
    writeFileSync(swapped, JSON.stringify(docA, null, 2))
    const { code, r } = check(swapped, dbPath('clean'), [...KEY, '--public-key', PUB])
    expect(code).toBe(1)
    expect(failing(r)).toEqual([])
    expect(r.signature.status).toBe('invalid')
  })

  it('a key swapped: re-signed by another key, checked against the real one', () => {
    const report = writeReport(dbPath('clean'), [...KEY, '--sign-key', join(attacker, 'bijotel_private.pem')])
    const withKey = check(report, dbPath('clean'), [...KEY, '--public-key', PUB])
    expect(withKey.code).toBe(1)
    expect(withKey.r.signature.status).toBe('invalid')
    expect(withKey.r.signature.detail).toMatch(
      /not by the given public key .* \(a key swap, or the wrong key file\)$/,
    )
    // Without --public-key the forged report is only self-consistent, and says so.
    const alone = check(report, dbPath('clean'), KEY)
    expect(alone.code).toBe(0)
    expect(alone.r.signature).toMatchObject({ status: 'valid', key: 'embedded' })
    expect(alone.r.signature.detail).toContain('nothing proves who signed it')
  })

  it('an unsigned report with --public-key fails; a keyed report checked without its key is not reproduced', () => {
    const report = writeReport(dbPath('clean'), KEY)
    expect(check(report, dbPath('clean'), [...KEY, '--public-key', PUB]).code).toBe(1)
    const { code, r } = check(report, dbPath('clean'), [])
    expect(code).toBe(1)
    expect(r.fields.find((f) => f.field === 'verification.verdict.valid')).toMatchObject({
      status: 'not_checked',
      note: 'no key given: the verdict cannot be re-run',
    })
    // The wrong key: the key set differs, and so does the verdict.
    const wrong = check(report, dbPath('clean'), secretArgs(['attacker']))
    expect(wrong.code).toBe(1)
    expect(failing(wrong.r)).toEqual(
      expect.arrayContaining(['verification.keys', 'verification.verdict.valid']),
    )
  })

  it('the report is checked against another chain: every difference is named', () => {
    const report = writeReport(dbPath('clean'), KEY)
    const { code, r } = check(report, dbPath('truncated-tail'), KEY)
    expect(code).toBe(1)
    expect(failing(r)).toEqual(
      expect.arrayContaining([
        'evidence.db.sha256',
        'chain.entries',
        'verification.verdict.head_hmac',
        'coverage.rows.digest',
      ]),
    )
    const digest = r.fields.find((f) => f.field === 'coverage.rows.digest')
    expect(digest?.note).toBeUndefined() // cut at 210: the truncation, not a changed block
  })

  it('usage errors exit 2; a file that is not a report, 2; a missing chain, 1', () => {
    const report = writeReport(dbPath('clean'), KEY)
    expect(bijotel(['report', 'verify', '--db', dbPath('clean')]).code).toBe(2)
    expect(bijotel(['report', 'verify', report]).code).toBe(2)
    const notReport = join(scratch.dir, 'not-a-report.json')
    writeFileSync(notReport, '[1, 2]')
    const r = bijotel(['report', 'verify', notReport, '--db', dbPath('clean')])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`ERROR: ${notReport}: not a JSON object\n`)
    const verdict = join(scratch.dir, 'verdict.json')
    copyFileSync(join(FIXTURES, 'truncated-tail.prior-verify.json'), verdict)
    expect(bijotel(['report', 'verify', verdict, '--db', dbPath('clean')]).stderr).toBe(
      `ERROR: ${verdict}: not a BIJOTEL Auditor audit report\n`,
    )
    const missing = bijotel(['report', 'verify', report, '--db', join(scratch.dir, 'nope.db'), ...KEY])
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
  })
})
