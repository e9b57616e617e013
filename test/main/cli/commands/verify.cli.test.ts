// `bin/bijotel verify` end to end on every shared fixture: the --json verdict equals the fixture's
// expected verdict field for field, the text and exit codes are the reference's, bad files give one
// line and exit 1, and nothing in the fixtures folder changes. Every one of these fixtures is
// searched for recoverable rows, and none is found (their files hold no remnants).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EvidenceStatement } from '../../../../src/shared/custody-types'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { expectStatementOf, verdictOnly } from '../../testing/evidence'
import { dbPath, expected, fingerprintFolder, FIXTURES, fixtureNames, SECRETS } from '../../testing/fixtures'

function secretArgs(names: string[]): string[] {
  return names.flatMap((n) =>
    n === 'raw_text' ? ['--secret-text', SECRETS[n]!] : ['--secret-hex', SECRETS[n]!],
  )
}

let before: Map<string, string>
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

/**
 * The one notice a fixture may carry: sqlite_sequence above the live head (issue 39's witness:
 * unsealed, a notice never a finding), naming the live head the verdict names.
 */
function witnessOnly(notices: string[] | undefined, lastSeq: unknown): void {
  for (const n of notices ?? [])
    expect(n).toMatch(
      new RegExp(
        `^sqlite_sequence records seq \\d+ for the chain table, above the largest live seq ${String(lastSeq)}:`,
      ),
    )
}

describe('bijotel verify --json on every fixture', () => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    it(`${name} (${exp.secrets.join('+')})`, () => {
      const r = bijotel(['verify', '--db', dbPath(name), ...secretArgs(exp.secrets), '--json'])
      expect(r.stderr).toBe('')
      const { recovery, recovered, notices, ...verdict } = verdictOnly(r.stdout) as Record<
        string,
        unknown
      > & {
        recovery: { searched: boolean }
        notices?: string[]
      }
      expect(verdict).toEqual(exp.verify)
      // The one notice a fixture may carry: sqlite_sequence above the live head (issue 39's witness:
      // unsealed, a notice never a finding), naming the live head the verdict names.
      for (const n of notices ?? [])
        expect(n).toMatch(
          new RegExp(
            `^sqlite_sequence records seq \\d+ for the chain table, above the largest live seq ${String(exp.verify['last_seq'])}:`,
          ),
        )
      expect(recovery.searched).toBe(true)
      expect(recovered).toEqual([])
      expect(r.code).toBe(exp.verify['valid'] ? 0 : 3)
      const s = (JSON.parse(r.stdout) as { evidence: EvidenceStatement }).evidence
      expectStatementOf(s, dbPath(name), {
        entries: exp.verify['entries'] as number,
        first_seq: exp.verify['first_seq'] as number | null,
        last_seq: exp.verify['last_seq'] as number | null,
      })
      expect(s.key_fingerprints).toHaveLength(exp.secrets.length)
    })
    it(`${name} (first secret only)`, () => {
      const r = bijotel(['verify', '--db', dbPath(name), ...secretArgs(exp.secrets.slice(0, 1)), '--json'])
      const {
        recovered,
        recovery: _r,
        notices,
        ...verdict
      } = verdictOnly(r.stdout) as Record<string, unknown> & { notices?: string[] }
      expect(verdict).toEqual(exp.verify_primary_only)
      witnessOnly(notices, exp.verify_primary_only['last_seq'])
      expect(recovered).toEqual([])
      expect(r.code).toBe(exp.verify_primary_only['valid'] ? 0 : 3)
    })
  }
})

describe('bijotel verify text output and exit codes', () => {
  it('prints the reference line for a valid chain', () => {
    const r = bijotel(['verify', '--db', dbPath('clean'), '--secret-hex', SECRETS['primary']!])
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('Chain VALID (240 entries).')
  })

  it('prints Chain BROKEN on stderr with the reference reason, then every finding', () => {
    const r = bijotel(['verify', '--db', dbPath('row-deleted'), '--secret-hex', SECRETS['primary']!])
    expect(r.code).toBe(3)
    expect(r.stderr).toBe('Chain BROKEN at seq=41: prev_hash mismatch (chain broken)\n')
    expect(r.stdout).toContain('seq_gap')
    expect(r.stdout).toContain('link_mismatch')
  })

  it('names both keys and the rotation boundary', () => {
    const r = bijotel(['verify', '--db', dbPath('rotation'), ...secretArgs(['primary', 'rotated'])])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('rotation boundary at seq=161: key #1 -> key #2')
  })

  it('detects truncation against a prior head', () => {
    const prior = join(FIXTURES, 'truncated-tail.prior-verify.json')
    const r = bijotel([
      'verify',
      '--db',
      dbPath('truncated-tail'),
      '--secret-hex',
      SECRETS['primary']!,
      '--prior',
      prior,
      '--json',
    ])
    expect(r.code).toBe(3)
    const v = JSON.parse(r.stdout)
    expect(v.valid).toBe(false)
    expect(v.first_bad_seq).toBe(211)
    // The prior is an unsigned verdict: a finding drawn only from it says so (issue 39).
    expect(v.findings).toEqual([
      { kind: 'truncated', from_seq: 211, to_seq: 240, count: 30, missing: 30, unsigned_prior: true },
    ])
    expect(v.prior_check.found).toBe(false)
    const same = bijotel([
      'verify',
      '--db',
      dbPath('clean'),
      '--secret-hex',
      SECRETS['primary']!,
      '--prior',
      prior,
    ])
    expect(same.code).toBe(0)
  })

  it('verifies a --since window without the reference false "chain broken" (§3.3)', () => {
    // clean.db's rows start on 2025-11-24: a window from the 25th skips the first rows.
    const r = bijotel([
      'verify',
      '--db',
      dbPath('clean'),
      '--secret-hex',
      SECRETS['primary']!,
      '--since',
      '2025-11-25',
      '--json',
    ])
    expect(r.code).toBe(0)
    const v = JSON.parse(r.stdout)
    expect(v.valid).toBe(true)
    expect(v.first_seq).toBeGreaterThan(1)
    expect(v.boundary.kind).toBe('predecessor')
  })

  it('dates beyond the years timestamp_ns holds select nothing or everything (Python: OverflowError)', () => {
    const run = (...range: string[]) =>
      bijotel([
        'verify',
        '--db',
        dbPath('clean'),
        '--secret-hex',
        SECRETS['primary']!,
        '--no-recover',
        ...range,
      ])
    const none = run('--since', '9999-01-01')
    expect([none.code, none.stderr]).toEqual([0, ''])
    expect(none.stdout).toContain('(0 entries of 240 total)')
    for (const all of [run('--until', '9999-12-31'), run('--since', '0001-01-01')]) {
      expect([all.code, all.stderr]).toEqual([0, ''])
      expect(all.stdout).toContain('seq 1-240 (240 entries of 240 total)')
    }
    expect(run('--until', '0001-01-01').stdout).toContain('(0 entries of 240 total)')
  })

  it('links a --range segment to its predecessor and still sees a deletion at its start', () => {
    const r = bijotel([
      'verify',
      '--db',
      dbPath('row-deleted'),
      '--secret-hex',
      SECRETS['primary']!,
      '--range',
      '41:60',
      '--json',
    ])
    expect(r.code).toBe(3)
    const v = JSON.parse(r.stdout)
    expect(v.first_bad_seq).toBe(41)
    expect(v.range).toMatchObject({ from_seq: 41, to_seq: 60, total_in_chain: 239 })
  })

  it('exit 2 for argument and secret errors, without echoing the secret', () => {
    expect(bijotel(['verify', '--db', dbPath('clean')]).code).toBe(2)
    const bad = bijotel(['verify', '--db', dbPath('clean'), '--secret-hex', 'zzsecretzz'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).not.toContain('zzsec')
    expect(
      bijotel(['verify', '--db', dbPath('clean'), '--secret-hex', SECRETS['primary']!, '--range', 'x']).code,
    ).toBe(2)
    expect(bijotel(['verify', '--bogus']).code).toBe(2)
  })

  it('reads BIJOTEL_HMAC_SECRET when no flag gives a secret', () => {
    const r = bijotel(['verify', '--db', dbPath('clean')], { BIJOTEL_HMAC_SECRET: SECRETS['primary']! })
    expect(r.code).toBe(0)
  })

  const bad = JSON.parse(readFileSync(join(FIXTURES, 'bad-inputs.json'), 'utf8')) as Record<string, string>
  for (const name of Object.keys(bad)) {
    it(`${name}: one line on stderr, exit 1, no stack trace`, () => {
      const r = bijotel(['verify', '--db', join(FIXTURES, `${name}.db`), '--secret-hex', SECRETS['primary']!])
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^ERROR: /)
      expect(r.stderr).not.toMatch(/\n\s+at |node:internal/)
    })
  }

  it('a missing DB is exit 1 with the reference message and creates nothing', () => {
    const r = bijotel([
      'verify',
      '--db',
      join(FIXTURES, 'does-not-exist.db'),
      '--secret-hex',
      SECRETS['primary']!,
    ])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^ERROR: DB not found: /)
  })
})
