// `bijotel verify --keyless` on every fixture: the verdict is the keyed one without what needs the
// key (no hmac_mismatch findings, no key segments), marked `hmac_checked: false`; its text never
// says `Chain VALID`, always says what was not checked and what a forger without the key could and
// could not have done; a break is exit 3. Edits that only the HMAC exposes (a body rewritten with its
// hash, a tail resealed) pass it, as the statement says, and fail the keyed verify.
import { UNPROVEN_CLAIMS } from '../recovery/recovery-expect'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Finding } from '../../../src/shared/verify-types'
import { KEYLESS_STATEMENT } from '../../../src/main/audit/keyless'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, expected, FIXTURES, fingerprintFolder, fixtureNames, SECRETS } from '../testing/fixtures'

beforeAll(() => ensureBuilt())
const before = fingerprintFolder()
afterAll(() => expect(fingerprintFolder()).toEqual(before))

describe('verify --keyless on every fixture', () => {
  for (const name of fixtureNames()) {
    it(`${name}: the keyed verdict without the HMAC checks`, () => {
      const keyed = expected(name).verify as {
        findings: Finding[]
        entries: number
        head_hmac: string | null
      }
      const want = keyed.findings.filter((f) => f.kind !== 'hmac_mismatch')
      const r = bijotel(['verify', '--db', dbPath(name), '--keyless', '--json'])
      const v = JSON.parse(r.stdout) as Record<string, unknown>
      expect(v['hmac_checked']).toBe(false)
      expect(v['findings']).toEqual(want)
      expect(v['key_segments']).toEqual([])
      expect(v['entries']).toBe(keyed.entries)
      expect(v['head_hmac']).toBe(keyed.head_hmac)
      expect(v['valid']).toBe(want.length === 0)
      expect(r.code).toBe(want.length === 0 ? 0 : 3)

      const t = bijotel(['verify', '--db', dbPath(name), '--keyless'])
      expect(t.code).toBe(r.code)
      expect(t.stdout).not.toMatch(/^Chain VALID/m)
      expect(t.stdout).toContain(KEYLESS_STATEMENT.join('\n'))
      if (want.length === 0)
        expect(t.stdout.split('\n')[0]).toBe(
          `Chain structure VALID without the key (${keyed.entries} entries): HMACs NOT checked.`,
        )
      else expect(t.stderr).toMatch(/^Chain BROKEN at seq=\d+: /)
    })
  }

  it('a body rewritten with its hash passes without the key and fails with it', () => {
    const keyless = bijotel(['verify', '--db', dbPath('hash-edit'), '--keyless'])
    expect(keyless.code).toBe(0)
    const keyed = bijotel(['verify', '--db', dbPath('hash-edit'), '--secret-hex', SECRETS['primary']!])
    expect(keyed.code).toBe(3)
    expect(keyed.stderr).toContain('hmac_hash mismatch')
  })

  it('ranges and a prior head work without the key; key options are refused with it', () => {
    const r = bijotel(['verify', '--db', dbPath('clean'), '--keyless', '--range', '5:9'])
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe(
      'Chain segment structure VALID without the key: seq 5-9 (5 entries of 240 total): HMACs NOT checked.',
    )
    expect(r.stdout).toContain('Boundary: prev_hash at seq=5 = ')
    const cut = bijotel([
      'verify',
      '--db',
      dbPath('truncated-tail'),
      '--keyless',
      '--json',
      '--prior',
      dbPath('truncated-tail').replace(/\.db$/, '.prior-verify.json'),
    ])
    expect(cut.code).toBe(3)
    expect((JSON.parse(cut.stdout) as { findings: Finding[] }).findings.map((f) => f.kind)).toContain(
      'truncated',
    )
    const both = bijotel([
      'verify',
      '--db',
      dbPath('clean'),
      '--keyless',
      '--secret-hex',
      SECRETS['primary']!,
    ])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--keyless checks without a key: drop --secret-hex')
    // The environment's key is not a key option: it is simply not used.
    const env = bijotel(['verify', '--db', dbPath('clean'), '--keyless'], {
      BIJOTEL_HMAC_SECRET: SECRETS['primary']!,
    })
    expect(env.code).toBe(0)
    expect(env.stdout).toContain('HMACs NOT checked')
  })
})

describe('verify --keyless with the recovery post-pass (src/main/recovery)', () => {
  const cases = [
    'rec-deleted-middle',
    'rec-deleted-tail',
    'rec-live-rewrite',
    'rec-live-truncate',
    'rec-vacuumed',
  ]
  interface Recovered {
    seq: number | null
    canonical_hash: string
    hmac_hash: string
    status: string
    key_index: number | null
    body_ok: boolean | null
  }
  for (const name of cases) {
    it(`${name}: recovered rows listed with their body and link checks, none proven, none a finding`, () => {
      const rec = JSON.parse(readFileSync(join(FIXTURES, `${name}.recovery.json`), 'utf8')) as {
        secrets: string[]
        recovered_required: { seq: number; canonical_hash: string; hmac_hash: string; status: string }[]
      }
      const r = bijotel(['verify', '--db', dbPath(name), '--keyless', '--json'])
      const v = JSON.parse(r.stdout) as {
        hmac_checked: boolean
        findings: Finding[]
        recovered?: Recovered[]
        recovery?: { searched: boolean; proven: number }
      }
      expect(v.hmac_checked).toBe(false)
      expect(v.recovery).toMatchObject({ searched: true, proven: 0 })
      // Only a key proves a recovered row; without one none becomes a finding.
      expect(v.findings.filter((f) => ['deleted', 'rewritten', 'truncated'].includes(f.kind))).toEqual([])
      for (const want of rec.recovered_required) {
        const got = (v.recovered ?? []).find((x) => x.hmac_hash === want.hmac_hash)
        // Rows no sealed link places keep no seq (issue 39: rec-deleted-tail's rows past a lost row).
        const placed = UNPROVEN_CLAIMS[name] === undefined
        expect(got, `${name} seq ${want.seq}`).toMatchObject({
          seq: placed ? want.seq : null,
          canonical_hash: want.canonical_hash,
          status: placed ? want.status : 'unplaced',
          key_index: null,
          body_ok: true,
        })
      }
      // The keyed run recovers the same rows (and proves them).
      const keys = rec.secrets.flatMap((s) => ['--secret-hex', SECRETS[s]!])
      const keyed = JSON.parse(bijotel(['verify', '--db', dbPath(name), ...keys, '--json']).stdout) as {
        recovered?: Recovered[]
      }
      const ids = (rows: Recovered[] | undefined): string[] =>
        (rows ?? []).map((x) => `${x.seq}:${x.hmac_hash}:${x.status}`).sort()
      expect(ids(v.recovered)).toEqual(ids(keyed.recovered))

      const text = bijotel(['verify', '--db', dbPath(name), '--keyless'])
      if (rec.recovered_required.length > 0)
        expect(text.stdout).toMatch(
          UNPROVEN_CLAIMS[name] === undefined
            ? /^ {2}seq \d+ \(by links[^)]*\) +\w+ +UNPROVEN, body ok/m
            : /^ {2}run #1 unplaced +\d+ rows UNPROVEN/m,
        )
      const off = JSON.parse(
        bijotel(['verify', '--db', dbPath(name), '--keyless', '--no-recover', '--json']).stdout,
      ) as {
        recovery?: unknown
      }
      expect(off.recovery).toBeUndefined()
    })
  }
})
