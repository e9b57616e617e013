// Every shared recovery case (`rec-*.db`) through the library: verifyFile with recovery and
// recoverFile, exactly as its `.recovery.json` says; and the fixtures are never changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'
import {
  expectAllowed,
  expectRequired,
  expectVerdict,
  recoveryCase,
  recoveryCaseNames,
} from './recovery-expect'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

describe('recovery cases through the library', () => {
  const names = recoveryCaseNames()
  it('has the six shared cases', () => {
    expect(names.length).toBeGreaterThanOrEqual(6)
  })
  for (const name of names) {
    const c = recoveryCase(name)
    it(`${name}: verify with recovery`, async () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const { verdict, reader } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1 })
      expect(reader).toBe('direct')
      expectVerdict(verdict, c)
    })
    it(`${name}: verify --no-recover sees only the live chain`, async () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const { verdict } = await verifyFile(dbPath(name), keys, { workers: 1 })
      expect(verdict.recovered).toBeUndefined()
      expect(verdict.findings.some((f) => f.kind === 'rewritten' || f.kind === 'deleted')).toBe(false)
    })
    it(`${name}: recoverFile with the key proves every required row, without it proves none`, () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const withKey = recoverFile(dbPath(name), keys)
      expectRequired(withKey.rows, c.recovered_required)
      expectAllowed(withKey.rows, c.recovered_allowed)
      for (const r of c.recovered_required) {
        const row = withKey.rows.find((x) => x.seq === r.seq && x.hmac_hash === r.hmac_hash)!
        expect(row.key_index).toBe(0)
      }
      const keyless = recoverFile(dbPath(name), [])
      expect(keyless.rows.map((r) => [r.seq, r.hmac_hash])).toEqual(
        withKey.rows.map((r) => [r.seq, r.hmac_hash]),
      )
      expect(keyless.rows.every((r) => r.key_index === null)).toBe(true)
      expect(keyless.summary.proven).toBe(0)
      if (keyless.rows.length > 0) expect(keyless.summary.note).toContain('unproven')
    })
  }
})
