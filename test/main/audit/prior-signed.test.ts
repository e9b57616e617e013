// A signed prior is named by its key (issue 39, "Priors"): its signature is checked against the key
// the report itself carries, which ties it to that key, not to a person — an insider can edit a
// report and sign it anew with a key of their own, and it holds as well. So every prior line and
// every finding drawn from a signed prior names the key's fingerprint, never a bare "signed".
// Generated: reports of clean.db signed with fresh keys, half of them edited and signed anew with
// another key, against the chain with a random tail cut.
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signReport } from '../../../src/main/custody/sign'
import type { AuditReport } from '../../../src/shared/report-types'
import { copyFixture, openScratch, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const KEY = SECRETS['primary']!
const scratch = scratchDir('prior-signed')
beforeAll(() => ensureBuilt())
afterAll(() => scratch.cleanup())

describe('a signed prior is named by the key it carries', () => {
  const rnd = mulberry32(0x5191)
  for (let n = 0; n < 6; n++) {
    const resigned = n % 2 === 1
    it(`#${n}${resigned ? ', edited and signed anew with another key' : ''}`, () => {
      const db = copyFixture('clean', scratch.dir, `chain-${n}.db`)
      const pem = join(scratch.dir, `key-${n}.pem`)
      const { privateKey } = generateKeyPairSync('ed25519')
      writeFileSync(pem, privateKey.export({ format: 'pem', type: 'pkcs8' }))
      const report = join(scratch.dir, `report-${n}.json`)
      expect(bijotel(['report', '--db', db, '--secret-hex', KEY, '--sign-key', pem, '-o', report]).code).toBe(
        0,
      )
      let doc = JSON.parse(readFileSync(report, 'utf8')) as AuditReport
      if (resigned) {
        const other = generateKeyPairSync('ed25519').privateKey
        doc = signReport({ ...doc, generated_at: '2020-01-01T00:00:00.000Z' } as AuditReport, other)
        writeFileSync(report, JSON.stringify(doc))
      }
      const fp = (doc as unknown as { signature: { fingerprint: string } }).signature.fingerprint
      const cut = 1 + Math.floor(rnd() * 20)
      const h = openScratch(db)
      try {
        h.prepare('DELETE FROM chain WHERE seq > (SELECT MAX(seq) FROM chain) - ?').run(cut)
      } finally {
        h.close()
      }
      const text = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', KEY, '--prior', report])
      expect(text.code).toBe(3)
      const lines = text.stdout.split('\n').filter((l) => /^(Prior| {2}truncated)/.test(l))
      expect(lines.length).toBeGreaterThan(0)
      for (const l of lines) expect(l, l).toContain(fp)
      const json = bijotel([
        'verify',
        '--db',
        db,
        '--no-recover',
        '--secret-hex',
        KEY,
        '--prior',
        report,
        '--json',
      ])
      const v = JSON.parse(json.stdout) as { findings: { kind: string; prior_signed_by?: string }[] }
      const truncated = v.findings.filter((f) => f.kind === 'truncated')
      expect(truncated.length).toBe(1)
      for (const f of truncated) expect(f.prior_signed_by).toBe(fp)
    })
  }
})
