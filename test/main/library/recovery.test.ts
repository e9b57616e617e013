// The recovery cases through the package's public entry (`bijotel-auditor`): verifyChain gives the
// verdict `bijotel verify --json` prints, recovered rows and their findings included (recover: false
// gives the live chain alone), and recoverChain lists what `bijotel recover` lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoverChain, verifyChain } from '../../../src/main/library/index'
import { dbPath, fingerprintFolder, SECRETS } from '../testing/fixtures'
import {
  expectAllowed,
  expectRequired,
  expectVerdict,
  recoveryCase,
  recoveryCaseNames,
  UNPROVEN_CLAIMS,
} from '../recovery/recovery-expect'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

const secretsOf = (names: string[]): string[] => names.map((n) => SECRETS[n]!)

describe('recovery through the library entry', () => {
  for (const name of recoveryCaseNames()) {
    const c = recoveryCase(name)
    it(`${name}: verifyChain as its .recovery.json says; recover: false sees only the live chain`, async () => {
      const secrets = secretsOf(c.secrets)
      const v = await verifyChain(dbPath(name), { secrets })
      // A case asking for a claim its links do not prove is held to what they prove (UNPROVEN_CLAIMS).
      if (UNPROVEN_CLAIMS[name]) expect(v.valid).toBe(true)
      else expectVerdict(v, c)
      const live = await verifyChain(dbPath(name), { secrets, recover: false })
      expect(live.recovered).toBeUndefined()
      expect(live.findings.some((f) => f.kind === 'rewritten' || f.kind === 'deleted')).toBe(false)
    })
    it(`${name}: recoverChain proves the required rows with the key, none without`, async () => {
      const withKey = await recoverChain(dbPath(name), { secrets: secretsOf(c.secrets) })
      if (!UNPROVEN_CLAIMS[name]) expectRequired(withKey.rows, c.recovered_required)
      // Only rows sealed links place are claims (issue 39).
      expectAllowed(
        withKey.rows.filter((r) => r.status === 'deleted' || r.status === 'superseded'),
        c.recovered_allowed,
      )
      const keyless = await recoverChain(dbPath(name))
      expect(keyless.rows.map((r) => r.hmac_hash)).toEqual(withKey.rows.map((r) => r.hmac_hash))
      expect(keyless.summary.proven).toBe(0)
    })
  }

  it('recoverChain rejects a missing file with a one-line AuditError', async () => {
    await expect(recoverChain(dbPath('no-such-chain'))).rejects.toMatchObject({ code: 'db_missing' })
  })
})
