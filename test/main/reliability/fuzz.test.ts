// Byte-level and content fuzzing through the CLI. CI size by default (FUZZ_CASES=300, well under a
// minute); scripts/fuzz.sh runs thousands. The summary goes to test-results/fuzz-summary.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fingerprintFolder, REPO_ROOT, SECRETS } from '../testing/fixtures'
import { scratchDir } from './chainkit'
import { CLI_JS, cliAvailable } from './cli-runner'
import { FUZZ_MUTATIONS, fuzzSummaryLine, runFuzz } from './fuzz'

const CASES = Number(process.env['FUZZ_CASES'] ?? 300)
const SEED = Number(process.env['FUZZ_SEED'] ?? 0xf022)
const OUT = process.env['FUZZ_SUMMARY'] ?? join(REPO_ROOT, 'test-results', 'fuzz-summary.json')

let work: ReturnType<typeof scratchDir>
let fixturesBefore: Map<string, string>
beforeAll(() => {
  fixturesBefore = fingerprintFolder()
  work = scratchDir('fuzz')
})
afterAll(() => {
  work.cleanup()
  expect(fingerprintFolder()).toEqual(fixturesBefore)
})

describe('fuzzing chain.db through the CLI', () => {
  it('the CLI is built (npm run build)', () => {
    expect(cliAvailable(), `${CLI_JS} is missing: run \`npm run build\` before the reliability suite`).toBe(
      true,
    )
  })

  it.runIf(cliAvailable())(
    `${CASES} mutated files: each a verdict or one clean ERROR line, never a crash, signal or timeout`,
    () => {
      const summary = runFuzz({
        cases: CASES,
        seed: SEED,
        workDir: work.dir,
        secretHex: SECRETS['primary']!,
        crashDir: join(REPO_ROOT, 'test-results', 'fuzz-crashes'),
      })
      const line = fuzzSummaryLine(summary)
      console.log(line)
      mkdirSync(join(OUT, '..'), { recursive: true })
      writeFileSync(OUT, JSON.stringify({ line, ...summary }, null, 2) + '\n')
      expect(summary.crash_samples.map((c) => `#${c.id} ${c.mutation} (${c.description}): ${c.why}`)).toEqual(
        [],
      )
      expect(summary.crashes).toBe(0)
      expect(summary.tried).toBe(CASES)
      // Not vacuous: both outcomes occur, and every mutation family ran.
      expect(summary.verdicts).toBeGreaterThan(0)
      expect(summary.clean_errors).toBeGreaterThan(0)
      if (CASES >= FUZZ_MUTATIONS.length)
        expect(Object.keys(summary.by_mutation).sort()).toEqual([...FUZZ_MUTATIONS].sort())
    },
    // Bounded: at most ~2 s per case even on a slow machine; the CI size takes ~30 s.
    Math.max(60_000, CASES * 2_000),
  )
})
