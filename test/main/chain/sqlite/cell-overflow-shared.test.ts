// Cells sharing one overflow chain (file format §1.6: each overflow page belongs to one cell; SQLite's
// integrity_check calls a second reference corruption, its readers follow the pointers as given).
// A generator writes a chain of small overflowing rows and one row with a long chain, then points
// every other cell at that long chain, each keeping its own rowid: a few megabytes of file claiming
// gigabytes of payload. Both readers must refuse it as corrupt promptly (verify in place and through
// SQLite on the copy, and the integrity window's columns pass); honest chains — read again and again through one source — must
// never trip the bound, which holds per pass.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { AuditError } from '../../../../src/main/base/errors'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { INTEGRITY_COLUMNS } from '../../../../src/main/chain/columns/types'
import { OpenedChain } from '../../../../src/main/chain/source/opened-chain'
import { KEY_HEX } from '../../testing/exact-chains'
import { sharedCase, shareTheLongChain } from '../../testing/shared-overflow'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-cell-shared-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

/** What one refusal may take (reading what the shared chains claim took tens of seconds). */
const BOUND_MS = 5000

async function refusal(run: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t = Date.now()
  try {
    await run()
    return { error: null, ms: Date.now() - t }
  } catch (e) {
    return { error: e, ms: Date.now() - t }
  }
}

describe('cells sharing one overflow chain', () => {
  const cases: [string, number, number, number][] = [
    ['p512', 512, 1500, 2000],
    ['p1024', 1024, 800, 1200],
    ['p4096', 4096, 300, 400],
  ]
  for (const [name, pageSize, small, longPages] of cases)
    it(`${name}: refused as corrupt, promptly, by verify (direct and through SQLite) and the columns pass`, async () => {
      const path = sharedCase(root, name, pageSize, small, longPages)
      const honest = await verifyFile(path, keys, {})
      expect(honest.verdict?.valid, 'the honest base').toBe(true)
      const shared = shareTheLongChain(path)
      expect(shared).toBeGreaterThan(small / 2)
      const fileBytes = readFileSync(path).length
      const claimed = shared * longPages * pageSize
      expect(claimed).toBeGreaterThan(20 * fileBytes)

      const v = await refusal(() => verifyFile(path, keys, {}))
      expect(v.error, `verify: ${String(v.error)}`).toBeInstanceOf(AuditError)
      expect((v.error as AuditError).code).toBe('corrupt')
      expect((v.error as AuditError).message).toMatch(/share overflow pages/)
      expect(v.ms).toBeLessThan(BOUND_MS)

      // Through SQLite on the private copy (the path of every file the direct reader declines).
      const was = process.env['BIJOTEL_READER']
      process.env['BIJOTEL_READER'] = 'sqlite'
      try {
        const q = await refusal(() => verifyFile(path, keys, {}))
        expect(q.error, `verify through SQLite: ${String(q.error)}`).toBeInstanceOf(AuditError)
        expect((q.error as AuditError).message).toMatch(/share overflow pages/)
        expect(q.ms).toBeLessThan(BOUND_MS)
      } finally {
        if (was === undefined) delete process.env['BIJOTEL_READER']
        else process.env['BIJOTEL_READER'] = was
      }

      const opened = await OpenedChain.open(path)
      try {
        const c = await refusal(() => opened.read((s) => s.lastColumns(s.count(), INTEGRITY_COLUMNS)))
        expect(c.error, `columns: ${String(c.error)}`).toBeInstanceOf(AuditError)
        expect(c.ms).toBeLessThan(BOUND_MS)
      } finally {
        opened.close()
      }
    }, 120_000)

  it('an honest chain with long overflow chains, read whole many times through one source, is never refused', async () => {
    const path = sharedCase(root, 'honest', 512, 300, 40)
    const opened = await OpenedChain.open(path)
    try {
      for (let pass = 0; pass < 12; pass++) {
        const rows = await opened.read((s) => {
          let n = 0
          const r = s.resolve(undefined)
          s.scan(s.place(r).place, r, () => {
            n++
          })
          return n
        })
        expect(rows).toBe(301)
      }
    } finally {
      opened.close()
    }
    const v = await verifyFile(path, keys, {})
    expect(v.verdict?.valid).toBe(true)
    process.env['BIJOTEL_READER'] = 'sqlite'
    try {
      const q = await verifyFile(path, keys, {})
      expect(q.verdict?.valid).toBe(true)
      expect(q.verdict?.entries).toBe(301)
    } finally {
      delete process.env['BIJOTEL_READER']
    }
  }, 120_000)
})
