// The audit report carries what recovery found: for every shared recovery case the report validates
// against the schema, its `recovery` block holds the required rows (proven with the key, unproven
// without), and the verdict carries the findings the case names.
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { buildAuditReport } from '../../../src/main/audit/build-report'
import { reportValidator } from '../testing/report-schema'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'
import {
  expectAllowed,
  expectFindings,
  expectRequired,
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

const validate = reportValidator()

async function reportFor(name: string, secrets: string[]): Promise<AuditReport> {
  const chain = await OpenedChain.open(dbPath(name))
  try {
    return await buildAuditReport({ chain, keys: parseSecrets(secretInputs(secrets)) })
  } finally {
    chain.close()
  }
}

describe('the report carries recovered rows', () => {
  for (const name of recoveryCaseNames()) {
    const c = recoveryCase(name)
    const unproven = UNPROVEN_CLAIMS[name] !== undefined
    it(`${name}: with the case's keys`, async () => {
      const r = await reportFor(name, c.secrets)
      const ok = validate(JSON.parse(JSON.stringify(r)))
      expect(validate.errors ?? null, JSON.stringify(validate.errors, null, 2)).toBeNull()
      expect(ok).toBe(true)
      expect(r.recovery.summary.searched).toBe(true)
      // Only rows sealed links place are claims (issue 39); the report shows the same statuses as verify.
      const claimed = r.recovery.rows.filter((x) => x.status === 'deleted' || x.status === 'superseded')
      if (!unproven) expectRequired(r.recovery.rows, c.recovered_required)
      expectAllowed(claimed, c.recovered_allowed)
      const v = r.verification!.verdict
      if (unproven) {
        expect(v.valid).toBe(true)
        expect(r.recovery.rows.every((x) => x.status === 'unplaced')).toBe(true)
        return
      }
      expect(v.valid).toBe(c.valid)
      expectFindings(v.findings, c)
      expect(v.recovered).toBeUndefined()
      if (!c.valid) expect(r.verification_note).toContain('BROKEN')
    })
    it(`${name}: without a key the rows are there, unproven`, async () => {
      const r = await reportFor(name, [])
      expect(validate(JSON.parse(JSON.stringify(r)))).toBe(true)
      expect(r.verification).toBeNull()
      if (!unproven) expectRequired(r.recovery.rows, c.recovered_required)
      expect(r.recovery.rows.every((x) => x.key_index === null)).toBe(true)
      expect(r.recovery.summary.proven).toBe(0)
    })
  }
})

describe('recovery reads the evidence through the descriptors the open step holds', () => {
  it('a live capture replaced by other bytes after the open is still searched as it was opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bijotel-held-'))
    try {
      const name = 'rec-live-rewrite'
      const c = recoveryCase(name)
      const db = join(dir, 'chain.db')
      copyFileSync(dbPath(name), db)
      if (existsSync(dbPath(name) + '-wal')) copyFileSync(dbPath(name) + '-wal', db + '-wal')
      const chain = await OpenedChain.open(db)
      try {
        // The names now lead to other files: a second open by name would search those.
        rmSync(db)
        rmSync(db + '-wal', { force: true })
        writeFileSync(db, 'not the evidence')
        const r = await buildAuditReport({ chain, keys: parseSecrets(secretInputs(c.secrets)) })
        expect(r.recovery.summary.searched).toBe(true)
        expectRequired(r.recovery.rows, c.recovered_required)
        expect(r.recovery.rows.length).toBeGreaterThan(0)
      } finally {
        chain.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
