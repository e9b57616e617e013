// The sqlite_sequence witness (issue 39): a notice when sqlite_sequence holds a seq above the largest
// live seq — raised by a deletion of the tail, or by hand (so never a finding) — and none otherwise.
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { sequenceOf } from '../../../src/main/chain/source/sequence'
import { parseSecrets } from '../../../src/main/chain/keys'
import { readChain } from '../../../src/main/chain/source/open-source'
import { dbPath, secretInputs } from '../testing/fixtures'

const dir = mkdtempSync(join(tmpdir(), 'bijotel-witness-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const keys = parseSecrets(secretInputs(['primary']))

describe('sqlite_sequence witness', () => {
  it('reads the chain table sequence of a fixture', async () => {
    const seq = await readChain(dbPath('rec-deleted-tail'), async (s) => sequenceOf(s))
    expect(seq).toBe(260n)
  })

  it('a tail deleted: a notice, not a finding', async () => {
    const { verdict } = await verifyFile(dbPath('rec-deleted-tail'), keys, { workers: 1 })
    expect(verdict.valid).toBe(true)
    expect(verdict.notices?.some((n) => n.includes('sqlite_sequence records seq 260'))).toBe(true)
  })

  it('clean chain: no notice', async () => {
    const { verdict } = await verifyFile(dbPath('clean'), keys, { workers: 1, recover: true })
    expect(verdict.notices ?? []).toEqual([])
  })

  for (const raise of [1n, 7n, 1000n, 2n ** 40n])
    it(`raised by hand by ${raise}: a notice naming it, never a finding`, async () => {
      const p = join(dir, `raised-${raise}.db`)
      copyFileSync(dbPath('clean'), p)
      const db = new Database(p)
      db.defaultSafeIntegers(true)
      const { seq } = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'chain'").get() as {
        seq: bigint
      }
      db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'chain'").run(seq! + raise)
      db.close()
      const { verdict } = await verifyFile(p, keys, { workers: 1, recover: true })
      expect(verdict.valid).toBe(true)
      expect(verdict.findings).toEqual([])
      expect(verdict.notices?.some((n) => n.includes(`records seq ${seq! + raise}`))).toBe(true)
    })
})
