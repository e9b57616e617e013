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
  expectFindings,
  expectVerdict,
  recoveryCase,
  recoveryCaseNames,
  UNPROVEN_CLAIMS,
} from './recovery-expect'
import { readSegments } from '../../../src/main/audit/segments'
import { dirname, join } from 'node:path'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

describe('recovery cases through the library', () => {
  const names = recoveryCaseNames()
  it('has the six shared cases and the two claims cases', () => {
    expect(names.length).toBeGreaterThanOrEqual(8)
    expect(names.filter((n) => n.startsWith('claims/')).length).toBeGreaterThanOrEqual(2)
  })
  for (const name of names) {
    const c = recoveryCase(name)
    if (UNPROVEN_CLAIMS[name]) {
      it(`${name}: held to what its links prove (${UNPROVEN_CLAIMS[name]})`, async () => {
        const keys = parseSecrets(secretInputs(c.secrets))
        const { verdict } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1 })
        expect(verdict.valid).toBe(true)
        const rows = verdict.recovered ?? []
        expect(rows.every((r) => r.status === 'unplaced' && r.key_index === 0)).toBe(true)
        expect(new Set(rows.map((r) => r.run)).size).toBe(1)
        // They are rows the chain had (the case's required rows), only not placed.
        for (const want of c.recovered_required)
          expect(rows.some((r) => r.hmac_hash === want.hmac_hash && r.rowid === want.seq)).toBe(true)
        expect(verdict.notices?.some((n) => n.includes('past the live head'))).toBe(true)
        expect(verdict.notices?.some((n) => n.includes('sqlite_sequence'))).toBe(true)
      })
      continue
    }
    if (c.segments && c.with_segments) {
      const w = c.with_segments
      it(`${name}: with --segment the archived rows are ${w.recovered_status}, never findings`, async () => {
        const keys = parseSecrets(secretInputs(c.secrets))
        const segments = await readSegments(c.segments!.map((s) => join(dirname(dbPath(name)), s)))
        const { verdict } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1, segments })
        expect(verdict.valid).toBe(w.valid)
        expectFindings(verdict.findings, { ...c, findings: w.findings })
        const archived = new Set(c.recovered_allowed.map((a) => `${a.seq}|${a.hmac_hash}`))
        const rows = (verdict.recovered ?? []).filter((r) => archived.has(`${r.seq}|${r.hmac_hash}`))
        expect(rows.length).toBeGreaterThan(0)
        for (const r of rows) expect(r.status).toBe(w.recovered_status)
        expect(verdict.segments).toEqual(segments.paths)
      })
    }
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
      const claimed = withKey.rows.filter((r) => r.status === 'deleted' || r.status === 'superseded')
      expectRequired(withKey.rows, c.recovered_required)
      expectAllowed(claimed, c.recovered_allowed)
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
