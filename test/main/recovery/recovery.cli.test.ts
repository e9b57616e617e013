// `bin/bijotel verify` and `bin/bijotel recover` on every shared recovery case, as its
// `.recovery.json` says; the case file written by `recover --out`; the evidence never changes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecoveryResult } from '../../../src/shared/recovery-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder, FIXTURES, SECRETS } from '../testing/fixtures'
import {
  expectAllowed,
  expectRequired,
  expectVerdict,
  recoveryCase,
  recoveryCaseNames,
  UNPROVEN_CLAIMS,
} from './recovery-expect'

const keyArgs = (names: string[]): string[] => names.flatMap((n) => ['--secret-hex', SECRETS[n]!])

let before: Map<string, string>
let work: string
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  work = mkdtempSync(join(tmpdir(), 'bijotel-recover-cli-'))
})
afterAll(() => {
  rmSync(work, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

describe('bijotel verify on the recovery cases', () => {
  for (const name of recoveryCaseNames()) {
    const c = recoveryCase(name)
    it(`${name}: --json as the case says, exit code, text`, () => {
      const r = bijotel(['verify', '--db', dbPath(name), ...keyArgs(c.secrets), '--json'])
      const valid = c.valid || UNPROVEN_CLAIMS[name] !== undefined
      expect(r.code).toBe(valid ? 0 : 3)
      if (!UNPROVEN_CLAIMS[name]) expectVerdict(JSON.parse(r.stdout), c)
      const text = bijotel(['verify', '--db', dbPath(name), ...keyArgs(c.secrets)])
      expect(text.code).toBe(r.code)
      if (valid) {
        // The reference's first line; notices and rows not linked to the chain may follow, never findings.
        expect(text.stdout).toMatch(/^Chain VALID \(\d+ entries\)\.\n/)
        expect(text.stdout).toMatch(/\nEvidence: [^\n]+\n$/)
        expect(text.stdout).not.toContain('Findings:')
      } else {
        for (const f of c.findings) expect(text.stdout).toContain(`  ${f.kind.padEnd(19)} seq `)
        expect(text.stdout).toContain(`Recovered rows (`)
        // The recovered rows come after the findings.
        expect(text.stdout.indexOf('Recovered rows')).toBeGreaterThan(text.stdout.indexOf('Findings:'))
        for (const req of c.recovered_required) expect(text.stdout).toContain(`seq ${req.seq} `)
      }
    })
  }

  it('--no-recover leaves the live verdict alone: rec-live-rewrite verifies', () => {
    const r = bijotel([
      'verify',
      '--db',
      dbPath('rec-live-rewrite'),
      ...keyArgs(['primary']),
      '--no-recover',
      '--json',
    ])
    expect(r.code).toBe(0)
    const v = JSON.parse(r.stdout)
    expect(v.valid).toBe(true)
    expect(v.recovered).toBeUndefined()
    expect(v.recovery).toBeUndefined()
  })
})

describe('the words of recovered rows (issue 35)', () => {
  // A row a `truncated` finding covers is called "truncated" in the recovered list too, never
  // "deleted" beside a truncated finding; nothing else is; "superseded" names a row status only.
  for (const name of recoveryCaseNames()) {
    const c = recoveryCase(name)
    it(`${name}: each recovered row's word is its finding's`, () => {
      const args = ['verify', '--db', dbPath(name), ...keyArgs(c.secrets)]
      const v = JSON.parse(bijotel([...args, '--json']).stdout) as VerifyVerdict
      const text = bijotel(args).stdout
      expect(text).not.toContain('superseded page')
      const lines = text.split('\n').filter((l) => /^ {2}seq \S+/.test(l))
      const words = new Map<string, Set<string>>()
      for (const l of lines) {
        const m = /^ {2}seq (\d+)(?: \([^)]*\))?\s+(\S+)/.exec(l)!
        const set = words.get(m[1]!) ?? new Set<string>()
        set.add(m[2]!)
        words.set(m[1]!, set)
      }
      const truncated = v.findings.filter((f) => f.kind === 'truncated')
      for (const r of v.recovered ?? []) {
        if (r.seq === null || (r.status === 'unplaced' && r.run !== undefined)) continue
        const inTrunc = truncated.some((f) => r.seq! >= f.from_seq && r.seq! <= f.to_seq)
        const want = r.status === 'deleted' && inTrunc ? 'truncated' : r.status
        expect(words.get(String(r.seq))).toContain(want)
        if (want === 'truncated') expect(words.get(String(r.seq))).not.toContain('deleted')
      }
      for (const [seq, set] of words)
        if (set.has('truncated'))
          expect(truncated.some((f) => Number(seq) >= f.from_seq && Number(seq) <= f.to_seq)).toBe(true)
    })
  }
})

describe('bijotel recover', () => {
  it('exit 3 with proven rows, 4 with the same rows unproven, 0 when nothing is found', () => {
    const proven = bijotel([
      'recover',
      '--db',
      dbPath('rec-live-truncate'),
      ...keyArgs(['primary']),
      '--json',
    ])
    expect(proven.code).toBe(3)
    const res = JSON.parse(proven.stdout) as RecoveryResult
    const c = recoveryCase('rec-live-truncate')
    expectRequired(res.rows, c.recovered_required)
    expectAllowed(res.rows, c.recovered_allowed)
    expect(res.rows.every((r) => r.key_index === 0 && r.body_ok === true)).toBe(true)

    const unproven = bijotel(['recover', '--db', dbPath('rec-live-truncate')])
    expect(unproven.code).toBe(4)
    expect(unproven.stdout).toContain('UNPROVEN')
    expect(unproven.stdout).toContain('no candidate key was given')

    const attacker = bijotel(['recover', '--db', dbPath('rec-live-truncate'), ...keyArgs(['attacker'])])
    expect(attacker.code).toBe(4)

    for (const name of ['rec-live-clean', 'rec-vacuumed', 'clean', 'wal-tail']) {
      const none = bijotel(['recover', '--db', dbPath(name), ...keyArgs(['primary']), '--json'])
      expect(none.code, name).toBe(0)
      const r = JSON.parse(none.stdout) as RecoveryResult
      expect(r.rows).toEqual([])
      expect(r.uncommitted).toEqual([])
      expect(r.summary.note).toContain('absence of remnants proves nothing')
    }
  })

  it('exit 1 for a missing or unreadable file, 2 for a bad argument', () => {
    const missing = bijotel(['recover', '--db', join(work, 'nope.db')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^ERROR: DB not found: /)
    const bad = bijotel(['recover', '--db', dbPath('bad-not-sqlite')])
    expect(bad.code).toBe(1)
    expect(bad.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(bijotel(['recover']).code).toBe(2)
    expect(bijotel(['recover', '--db', dbPath('clean'), '--bogus']).code).toBe(2)
    expect(bijotel(['recover', '--db', dbPath('clean'), '--secret-hex', 'xyz']).code).toBe(2)
  })

  it('--out writes bodies, CSV and JSONL, and refuses the evidence folder', () => {
    const out = join(work, 'case')
    const r = bijotel([
      'recover',
      '--db',
      dbPath('rec-deleted-middle'),
      ...keyArgs(['primary']),
      '--out',
      out,
    ])
    expect(r.code).toBe(3)
    const lines = readFileSync(join(out, 'recovered.jsonl'), 'utf8').trim().split('\n')
    const rows = lines.map(
      (l) => JSON.parse(l) as { seq: number; hmac_hash: string; body_file: string | null },
    )
    expectRequired(rows as never, recoveryCase('rec-deleted-middle').recovered_required)
    const csv = readFileSync(join(out, 'recovered.csv'), 'utf8').trim().split('\n')
    expect(csv[0]).toMatch(/^seq,seq_origin,status,/)
    expect(csv).toHaveLength(rows.length + 1)
    const bodies = readdirSync(join(out, 'bodies'))
    expect(bodies).toHaveLength(rows.filter((x) => x.body_file).length)
    const first = rows.find((x) => x.body_file)!
    const body = readFileSync(join(out, first.body_file!))
    expect(JSON.parse(body.toString('utf8'))).toBeTypeOf('object')
    // Never into a folder that is not empty, never into the evidence folder.
    expect(bijotel(['recover', '--db', dbPath('rec-deleted-middle'), '--out', out]).code).toBe(2)
    const refused = bijotel([
      'recover',
      '--db',
      dbPath('rec-deleted-middle'),
      '--out',
      join(FIXTURES, 'case'),
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("evidence's folder")
    expect(existsSync(join(FIXTURES, 'case'))).toBe(false)
  })
})
