// The differential harness in the suite (issue 23): seeded mutants of small generated chain folders,
// each read by the direct reader and by SQLite on a copy opened as the writer would. No mutant may
// be read differently without a decline, and no verdict may say VALID over fewer rows than SQLite
// sees. A short run here (bounded in cases and time); `scripts/differential.sh CASES` runs long.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeBases, report, runDifferential } from '../../testing/differential'

const CASES = Number(process.env['BIJOTEL_DIFF_CASES'] ?? 400)
const SEED = Number(process.env['BIJOTEL_DIFF_SEED'] ?? 23)
/** The short run stops adding cases after this long, whatever CASES says. */
const BUDGET_MS = Number(process.env['BIJOTEL_DIFF_BUDGET_MS'] ?? 45_000)
/** Comma-separated mutation names to run alone (a long run on one class). */
const ONLY = (process.env['BIJOTEL_DIFF_ONLY'] ?? '').split(',').filter(Boolean)
/** Run the whole search on every n-th mutant too (0: never; the recovery-focused long runs say 1). */
const RECOVER_EVERY = Number(process.env['BIJOTEL_DIFF_RECOVER_EVERY'] ?? 0)

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-differential-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('differential: the direct reader against SQLite on mutated folders', () => {
  it(
    'reads every mutant as SQLite does, or declines it; never VALID over fewer rows',
    async () => {
      const bases = makeBases(root)
      const result = await runDifferential({
        root,
        bases,
        cases: CASES,
        seed: SEED,
        budgetMs: BUDGET_MS,
        verifyEvery: 2,
        liveEvery: 3,
        only: ONLY,
        recoverEvery: RECOVER_EVERY,
      })
      console.log(`differential run, seed ${SEED}:\n${report(result)}`)
      expect(result.failures.slice(0, 10)).toEqual([])
      // The run must have covered ground (however slow the machine): mutants read equal, and
      // mutants declined.
      expect(result.total.cases).toBeGreaterThan(Math.min(CASES, 30))
      expect(result.total.same).toBeGreaterThan(0)
      expect(result.total.declined).toBeGreaterThan(0)
      // Recovery's reading of live pages was compared with SQLite's on mutants too.
      expect(result.total.liveCompared).toBeGreaterThan(0)
    },
    BUDGET_MS + 120_000,
  )
})
