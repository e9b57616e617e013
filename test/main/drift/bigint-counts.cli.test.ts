// A token count written as an int past the double range (≥ 309 digits) is no number to Python:
// float() of it, and the cost's int × price, raise OverflowError. JSON.parse reads the digits as
// Infinity, so on the old code such a row was a datapoint of value inf — an "anomaly" with z-score
// +inf (exit 1), or a baseline whose mean is inf hiding every real one. Now, as every value Python
// cannot convert, it gives no datapoint. Generated chains (counts of 300–320 digits among ordinary
// ones) are held to a Python model of which rows give a value, per dimension, evaluated and baseline.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RegressionResult } from '../../../src/shared/drift-types'
import { scratchDir } from '../reliability/chainkit'
import { hasPython } from './regression-oracle'
import { bijotel, ensureBuilt } from '../testing/cli'
import { REPO_ROOT } from '../testing/fixtures'

const scratch = scratchDir('bigint-counts')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

describe.skipIf(!hasPython)('token counts past the double range', () => {
  it('give no datapoint, as in Python (generated chains)', () => {
    const r = spawnSync(
      'python3',
      [join(__dirname, 'testdata', 'bigint-counts.py'), scratch.dir, '12', '7307'],
      {
        encoding: 'utf8',
        env: { ...process.env, PRICES_JSON: join(REPO_ROOT, 'src', 'main', 'python', 'prices.json') },
      },
    )
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as { path: string; dims: Record<string, [number, number]> }[]
    for (const c of cases) {
      const args = ['regression', '--db', c.path, '--json']
      const got = bijotel(args)
      expect(got.stdout, got.stderr).not.toMatch(/Infinity|inf/)
      const res = JSON.parse(got.stdout) as RegressionResult
      for (const d of res.dimensions) {
        const want = c.dims[d.dimension]
        if (want === undefined) continue
        expect([d.evaluated, d.baseline?.samples ?? 0], `${c.path} ${d.dimension}`).toEqual(want)
      }
    }
  }, 120_000)
})
