// `stats` prints the side tables' numbers as Python BIJOTEL's f-strings print what sqlite3 returns
// (reference §4.10): `Total refs: {t}` (an int, or a float's repr() when a REAL is among the
// ref_counts: `3.0`, `1e+20`, `inf`) and `{tok:,}` (a float formatted with no type: repr's digits
// with the integer part grouped, or its exponent form as it is). On the old code 1e20 printed as 21
// grouped digits, 1e-07 as 0.0000001, inf as ∞, -0.0 as -0, and a REAL sum of 3.0 as 3. Generated
// values of every magnitude (testdata/stats-values.py) against the oracle (testdata/pybrowse.py).
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { REPO_ROOT } from '../testing/fixtures'

const hasPython = spawnSync('python3', ['--version']).status === 0
const scratch = scratchDir('stats-values')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

describe.skipIf(!hasPython)('stats: REAL and INTEGER side-table values', () => {
  it('the same text as the oracle', () => {
    const dir = join(scratch.dir, 'chains')
    mkdirSync(dir)
    const g = spawnSync('python3', [join(__dirname, 'testdata', 'stats-values.py'), dir, '24', '4747'], {
      encoding: 'utf8',
    })
    expect(g.status, g.stderr).toBe(0)
    const paths = JSON.parse(g.stdout) as string[]
    const env = { ...process.env, PRICES_JSON: join(REPO_ROOT, 'src', 'main', 'python', 'prices.json') }
    let floats = 0
    for (const [i, p] of paths.entries()) {
      const copy = join(scratch.dir, `copy${i}.db`)
      copyFileSync(p, copy)
      const o = spawnSync('python3', [join(__dirname, 'testdata', 'pybrowse.py'), 'stats', copy], {
        encoding: 'utf8',
        env,
      })
      expect(o.status, o.stderr).toBe(0)
      const r = bijotel(['stats', '--db', p])
      expect([r.code, r.stdout], p).toEqual([0, o.stdout])
      if (/e[+-]\d|inf|\.\d+ tokens/.test(o.stdout)) floats++
    }
    expect(floats).toBeGreaterThan(5) // the generator reaches the float forms
  }, 240_000)
})
