// `bijotel regression` prints the reference's "[<dim>] no anomalies detected" also where no value
// could have been flagged: no baseline (fewer than 5 values, a window below 5), no evaluated value,
// a baseline without spread (all rows equal: no z-score; IQR 0: fences that never open) or a z
// threshold of nan/inf. stdout stays the reference's (the Python oracle's bytes, exit code included);
// each such dimension gets one stderr note and `not_judged` in --json, and a judged one gets neither.
// Generated: seeded chains of each kind, the evaluated rows holding a spike far past the baseline.
import { join } from 'node:path'
import { mulberry32 } from '../testing/prng'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RegressionResult } from '../../../src/shared/drift-types'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { hasPython, regressionOracle } from './regression-oracle'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'

const scratch = scratchDir('not-judged')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

type Kind = 'constant' | 'iqr-zero' | 'few' | 'none-evaluated' | 'nan' | 'inf' | 'small-window' | 'noisy'
const KINDS: Kind[] = ['constant', 'iqr-zero', 'few', 'none-evaluated', 'nan', 'inf', 'small-window', 'noisy']

let n = 0
/** A chain of the kind, its regression arguments, and whether input_tokens can be judged. */
function generate(kind: Kind, rand: () => number): { db: string; args: string[]; judged: boolean } {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  const base = 100 + Math.floor(rand() * 900)
  const total = 60 + Math.floor(rand() * 150)
  const evaluatedFrom = total - 50
  const few = Math.floor(rand() * 5)
  const rows: RowSpec[] = Array.from({ length: total }, (_, i) => {
    const evaluated = i >= evaluatedFrom
    let tokens: number | undefined
    if (evaluated) tokens = i % 5 === 0 ? base * 100 : base
    else if (kind === 'constant') tokens = base
    else if (kind === 'iqr-zero') tokens = i % 9 === 0 ? base * 2 : base
    else if (kind === 'few') tokens = evaluatedFrom - i <= few ? base + i : undefined
    else tokens = base + Math.floor(rand() * 40) - 20
    if (kind === 'none-evaluated' && evaluated) tokens = undefined
    const attributes: Record<string, unknown> = { 'gen_ai.request.model': 'claude-haiku-4-5' }
    if (tokens !== undefined) attributes['gen_ai.usage.input_tokens'] = tokens
    return spanRow({ timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n, attributes })
  })
  const db = join(scratch.dir, `${kind}-${++n}.db`)
  writeChain(db, key, rows)
  const args = ['--dimension', 'input_tokens']
  if (kind === 'nan') args.push('--z-threshold', rand() < 0.5 ? 'nan' : 'NaN')
  if (kind === 'inf') args.push('--z-threshold', rand() < 0.5 ? 'inf' : 'Infinity')
  if (kind === 'small-window') args.push('--window', String(Math.floor(rand() * 5)))
  return { db, args, judged: kind === 'noisy' }
}

describe('regression: a dimension nothing could be flagged in is said so, stdout the reference’s', () => {
  it('generated chains of every kind (seeded)', () => {
    const rand = mulberry32(20261207)
    for (let round = 0; round < 2; round++) {
      for (const kind of KINDS) {
        const { db, args, judged } = generate(kind, rand)
        const what = `${kind} ${args.join(' ')}`
        const r = bijotel(['regression', '--db', db, ...args])
        if (hasPython) expect(r.stdout, what).toBe(regressionOracle(db, args))
        const j = JSON.parse(
          bijotel(['regression', '--db', db, ...args, '--json']).stdout,
        ) as RegressionResult
        const dim = j.dimensions[0]!
        if (judged) {
          // The spikes (100 × the baseline) are found; nothing is said on stderr.
          expect(r.code, what).toBe(1)
          expect(dim.anomalies.length, what).toBeGreaterThan(0)
          expect(dim.not_judged, what).toBeUndefined()
          expect(r.stderr, what).toBe('')
          continue
        }
        expect(r.stdout, what).toContain('[input_tokens] no anomalies detected\n')
        expect(r.code, what).toBe(0)
        expect(dim.anomalies, what).toEqual([])
        expect(typeof dim.not_judged, what).toBe('string')
        expect(r.stderr, what).toBe(
          `note: [input_tokens] not judged: ${dim.not_judged}; "no anomalies detected" means none could be found\n`,
        )
        const words: Record<Exclude<Kind, 'noisy'>, RegExp> = {
          constant: /standard deviation 0/,
          'iqr-zero': /IQR 0/,
          few: /^no baseline: \d values? before seq \d+, at least 5 needed$/,
          'none-evaluated': /^no row of seqs \d+\.\.\d+ gives a value$/,
          nan: /threshold of NaN/,
          inf: /threshold of Infinity/,
          'small-window': /^no baseline: .*the window takes at most [1-4]$/,
        }
        expect(dim.not_judged, what).toMatch(words[kind as Exclude<Kind, 'noisy'>])
      }
    }
  })
})
