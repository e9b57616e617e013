// `bijotel regression` against an independent Python re-implementation of reference §8
// (../browse/testdata/pybrowse.py, written from the spec with Python's own statistics.fmean/stdev,
// f-string padding and datetime rounding): the same text, byte for byte, on the shared fixtures and
// on a written chain with drift in every dimension (a token spike, a price jump, cache and reasoning
// ratios, a slow first chunk), odd values and non-JSON rows; the JSON result agrees with the text;
// the exit codes of §4.11 (0 none, 1 anomalies, 2 DB missing, bad dimension, bad numbers).
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RegressionResult } from '../../../src/shared/drift-types'
import { copyFixture, scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { hasPython, regressionOracle } from './regression-oracle'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('regression')
const before = fingerprintFolder()
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})
beforeAll(() => ensureBuilt())

let n = 0

/**
 * 260 rows: steady usage with noise, then in the last 50 seq numbers a token spike, a cost jump,
 * a cache-ratio collapse, a reasoning burst and slow first chunks; some rows of another model,
 * some without usage, a few non-JSON bodies (skipped as the reference skips them).
 */
function driftChain(): string {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  const path = join(scratch.dir, `drift-${++n}.db`)
  const t0 = 1_764_000_000_123_456_789n
  const rows: RowSpec[] = Array.from({ length: 260 }, (_, i) => {
    const late = i >= 210
    const spike = late && i % 7 === 0
    const model = i % 5 === 4 ? 'gpt-4o' : 'claude-haiku-4-5'
    const attrs: Record<string, unknown> = {
      'gen_ai.request.model': model,
      'gen_ai.usage.input_tokens': spike ? 9000 + i : 400 + ((i * 37) % 61),
      'gen_ai.usage.output_tokens': spike ? 4000 : 200 + ((i * 13) % 29),
    }
    if (i % 3 !== 0)
      attrs['gen_ai.usage.cache_read.input_tokens'] = late && i % 4 === 0 ? 0 : 300 + ((i * 11) % 17)
    if (i % 2 === 0) attrs['gen_ai.usage.reasoning.output_tokens'] = spike ? 5000 : 50 + ((i * 7) % 13)
    if (i % 6 !== 5)
      attrs['gen_ai.response.time_to_first_chunk'] = late && i % 9 === 0 ? 12.5 : 0.4 + (i % 10) / 100
    if (i === 30) attrs['gen_ai.usage.input_tokens'] = '512'
    if (i === 31) attrs['gen_ai.usage.output_tokens'] = true
    if (i % 50 === 17) delete attrs['gen_ai.usage.input_tokens']
    return spanRow({ timestamp_ns: t0 + BigInt(i) * 59_999_999_999n, attributes: attrs })
  })
  for (const i of [40, 120, 230]) rows[i] = { ...rows[i]!, body: Buffer.from('not json {') }
  writeChain(path, key, rows)
  return path
}

describe.skipIf(!hasPython)('the same text as the reference (§8)', () => {
  it('on the fixtures: every dimension, each dimension alone, a model filter', () => {
    for (const name of ['clean', 'wal-tail', 'rotation', 'odd-non-json-body']) {
      const copy = copyFixture(name, scratch.dir, `${name}-${++n}.db`)
      for (const args of [[], ['--dimension', 'cost'], ['--model', 'grok-3-mini', '--window', '20']]) {
        const r = bijotel(['regression', '--db', dbPath(name), ...args])
        const expected = regressionOracle(copy, args)
        expect(r.stdout, `${name} ${args.join(' ')}`).toBe(expected)
        expect(r.code).toBe(expected.includes('Total anomalies: 0\n') ? 0 : 1)
      }
    }
  })

  it('on a chain with drift in every dimension, with every option', () => {
    const db = driftChain()
    const runs = [
      [],
      ['--dimension', 'input_tokens'],
      ['--dimension', 'ttfc_ms', '--z-threshold', '1.5'],
      ['--model', 'claude-haiku-4-5'],
      ['--model', 'gpt-4o', '--window', '7'],
      ['--window', '5', '--z-threshold', '0.5'],
      ['--window', '0'],
      ['--z-threshold', '1e1'],
    ]
    let flagged = 0
    for (const args of runs) {
      const r = bijotel(['regression', '--db', db, ...args])
      const expected = regressionOracle(db, args)
      expect(r.stdout, args.join(' ')).toBe(expected)
      const anomalies = !expected.includes('Total anomalies: 0\n')
      if (anomalies) flagged++
      expect(r.code, args.join(' ')).toBe(anomalies ? 1 : 0)
    }
    // The chain's drift is found in most runs (the oracle and the CLI agree on which).
    expect(flagged).toBeGreaterThan(4)
  })
})

describe('--json', () => {
  it('the anomalies of the text, with baselines and evaluated counts', () => {
    const db = driftChain()
    const text = bijotel(['regression', '--db', db])
    const r = bijotel(['regression', '--db', db, '--json'])
    expect(r.code).toBe(text.code)
    const j = JSON.parse(r.stdout) as RegressionResult
    expect(j.since_seq).toBe(211)
    expect(j.window).toBe(100)
    expect(j.z_threshold).toBe(3)
    expect(j.dimensions.map((d) => d.dimension)).toEqual([
      'input_tokens',
      'output_tokens',
      'cost',
      'cache_ratio',
      'reasoning_ratio',
      'ttfc_ms',
    ])
    expect(j.total_anomalies).toBe(j.dimensions.reduce((s, d) => s + d.anomalies.length, 0))
    expect(text.stdout).toContain(`Total anomalies: ${j.total_anomalies}\n`)
    for (const d of j.dimensions) {
      expect(d.baseline?.samples).toBe(100)
      if (d.anomalies.length === 0) expect(text.stdout).toContain(`[${d.dimension}] no anomalies detected`)
      else expect(text.stdout).toContain(`[${d.dimension}] ${d.anomalies.length} anomalies:`)
      for (const a of d.anomalies) {
        expect(a.seq).toBeGreaterThanOrEqual(211)
        expect(a).toMatchObject({ dimension: d.dimension, method_triggered: 'both', severity: 'anomaly' })
        expect(a.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
      }
    }
    const input = j.dimensions.find((d) => d.dimension === 'input_tokens')!
    // Spikes at i % 7 == 0 among i >= 210 (seq = i + 1), but i = 217 (i % 50 == 17): no input count.
    expect(input.anomalies.map((a) => a.seq)).toEqual([211, 225, 232, 239, 246, 253, 260])
  })
})

describe('errors and exit codes', () => {
  it('DB missing or not a chain: 2; a bad dimension or number: 2; an empty chain: 0', () => {
    const missing = join(scratch.dir, 'nope.db')
    const r = bijotel(['regression', '--db', missing])
    expect([r.code, r.stderr]).toEqual([2, `ERROR: chain DB not found: ${missing}\n`])
    const bad = bijotel(['regression', '--db', dbPath('bad-not-sqlite')])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^ERROR: .+\n$/)
    const dim = bijotel(['regression', '--db', dbPath('clean'), '--dimension', 'latency'])
    expect(dim.code).toBe(2)
    expect(dim.stderr).toContain("argument --dimension: invalid choice: 'latency'")
    expect(bijotel(['regression', '--db', dbPath('clean'), '--window', 'ten']).code).toBe(2)
    expect(bijotel(['regression', '--db', dbPath('clean'), '--z-threshold', 'x']).code).toBe(2)
    const empty = bijotel(['regression', '--db', dbPath('bad-empty')])
    expect(empty.stderr).toMatch(/^(ERROR: .+\n)?$/)
  })
})
