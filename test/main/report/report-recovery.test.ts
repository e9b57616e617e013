// The audit report carries what recovery found: for every shared recovery case the report validates
// against the schema, its `recovery` block holds the required rows (proven with the key, unproven
// without), and the verdict carries the findings the case names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { ChainFile } from '../../../src/main/chain/reader'
import { buildAuditReport } from '../../../src/main/report/build'
import { reportValidator } from '../../../src/main/report/schema'
import { parseSecrets } from '../../../src/main/verify/secrets'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'
import {
  expectAllowed,
  expectFindings,
  expectRequired,
  recoveryCase,
  recoveryCaseNames,
} from '../recovery/recovery-expect'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

const validate = reportValidator()

async function reportFor(name: string, secrets: string[]): Promise<AuditReport> {
  const chain = await ChainFile.open(dbPath(name))
  try {
    return await buildAuditReport({ chain, keys: parseSecrets(secretInputs(secrets)) })
  } finally {
    chain.close()
  }
}

describe('the report carries recovered rows', () => {
  for (const name of recoveryCaseNames()) {
    const c = recoveryCase(name)
    it(`${name}: with the case's keys`, async () => {
      const r = await reportFor(name, c.secrets)
      const ok = validate(JSON.parse(JSON.stringify(r)))
      expect(validate.errors ?? null, JSON.stringify(validate.errors, null, 2)).toBeNull()
      expect(ok).toBe(true)
      expect(r.recovery.summary.searched).toBe(true)
      expectRequired(r.recovery.rows, c.recovered_required)
      expectAllowed(r.recovery.rows, c.recovered_allowed)
      const v = r.verification!.verdict
      expect(v.valid).toBe(c.valid)
      expectFindings(v.findings, c)
      expect(v.recovered).toBeUndefined()
      if (!c.valid) expect(r.verification_note).toContain('BROKEN')
    })
    it(`${name}: without a key the rows are there, unproven`, async () => {
      const r = await reportFor(name, [])
      expect(validate(JSON.parse(JSON.stringify(r)))).toBe(true)
      expect(r.verification).toBeNull()
      expectRequired(r.recovery.rows, c.recovered_required)
      expect(r.recovery.rows.every((x) => x.key_index === null)).toBe(true)
      expect(r.recovery.summary.proven).toBe(0)
    })
  }
})
