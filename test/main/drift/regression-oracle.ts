// Test kit: the Python oracle of `bijotel regression` (testdata/pybrowse.py, an independent
// re-implementation of the reference's §8 text), and whether python3 is here to run it.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from '../testing/fixtures'

export const hasPython = spawnSync('python3', ['--version']).status === 0

const PRICES_JSON = join(REPO_ROOT, 'src', 'main', 'python', 'prices.json')

/** The oracle's stdout for `regression <db> <args>`. */
export function regressionOracle(db: string, args: string[]): string {
  const r = spawnSync(
    'python3',
    [join(__dirname, '..', 'browse', 'testdata', 'pybrowse.py'), 'regression', db, ...args],
    { encoding: 'utf8', env: { ...process.env, PRICES_JSON } },
  )
  if (r.status !== 0) throw new Error(`oracle failed: ${r.stderr}`)
  return r.stdout
}
