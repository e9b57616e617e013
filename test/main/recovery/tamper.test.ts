// Recovery against the tamper corpus (../reliability/tamper.ts): the untampered chain yields no
// recovered row; in every tampered copy, each proven recovered row is a row the clean chain really
// had (recovery never invents a sealed row), and the deletions that left remnants become the findings
// no live check could make.
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { copyFixture, openScratch, scratchDir } from '../reliability/chainkit'
import { loadBase, planCorpus, type BaseChain, type TamperKind } from '../reliability/tamper'
import { fingerprintFolder, SECRETS } from '../testing/fixtures'

/** The finding a tampering's proven remnants make (a deleted prefix too: no longer a mere boundary). */
const EXPECTED: Partial<Record<TamperKind, 'truncated' | 'deleted' | 'rewritten'>> = {
  truncate_tail: 'truncated',
  delete_row: 'deleted',
  delete_rows: 'deleted',
  delete_first: 'deleted',
  rewrite_with_true_key: 'rewritten',
}

let work: ReturnType<typeof scratchDir>
let baseFile: string
let base: BaseChain
let fixturesBefore: Map<string, string>
const keys = parseSecrets([{ encoding: 'hex', value: SECRETS['primary']! }])

beforeAll(() => {
  fixturesBefore = fingerprintFolder()
  work = scratchDir('recovery-tamper')
  baseFile = copyFixture('clean', work.dir)
  base = loadBase(baseFile, SECRETS['primary']!, SECRETS['attacker']!)
})
afterAll(() => {
  work.cleanup()
  expect(fingerprintFolder()).toEqual(fixturesBefore)
})

describe('recovery on the tamper corpus', () => {
  it('the untampered chain: nothing recovered, verdict valid', async () => {
    const { verdict } = await verifyFile(baseFile, keys, { recover: true, workers: 1 })
    expect(verdict.valid).toBe(true)
    expect(verdict.recovered).toEqual([])
    expect(verdict.recovery?.searched).toBe(true)
  })

  it('every proven recovered row is one the clean chain had; deletions and rewrites are found', async () => {
    const clean = new Map(base.rows.map((r) => [String(r.hmac_hash), Number(r.seq)]))
    const found = new Map<TamperKind, number>()
    for (const c of planCorpus(90, 0x7ec0, base)) {
      const file = join(work.dir, `case-${c.id}.db`)
      copyFileSync(baseFile, file)
      try {
        const db = openScratch(file)
        try {
          db.transaction(() => c.apply(db))()
        } finally {
          db.close()
        }
        const r = recoverFile(file, keys)
        if (!r.summary.searched) continue // a schema change the carver does not read (rename_table …)
        for (const row of r.rows.filter((x) => x.key_index !== null)) {
          expect(clean.has(row.hmac_hash), `${c.kind} #${c.id}: proven row not in the clean chain`).toBe(true)
          if (row.seq_origin === 'chain') expect(row.seq).toBe(clean.get(row.hmac_hash))
        }
        const proven = r.rows.filter((x) => x.key_index !== null).length
        found.set(c.kind, (found.get(c.kind) ?? 0) + proven)
        const kind = EXPECTED[c.kind]
        // Only rows sealed links place are claims (issue 39).
        const placed = r.rows.filter(
          (x) => x.key_index !== null && (x.status === 'deleted' || x.status === 'superseded'),
        ).length
        if (placed > 0 && kind) {
          const { verdict } = await verifyFile(file, keys, { recover: true, workers: 1 })
          expect(verdict.valid).toBe(false)
          expect(
            verdict.findings.some((f) => f.kind === kind),
            `${c.kind} #${c.id}`,
          ).toBe(true)
        }
      } finally {
        rmSync(file, { force: true })
        rmSync(`${file}-journal`, { force: true })
      }
    }
    // The clean fixture is a rollback-journal file written with secure_delete off: deleted rows stay.
    // (A rewrite that keeps every cell's size is written over the old cells in place: in a rollback
    // journal file nothing of it remains, and nothing is claimed.)
    for (const kind of ['delete_rows', 'truncate_tail'] as const)
      expect(found.get(kind) ?? 0, kind).toBeGreaterThan(0)
  })
})
