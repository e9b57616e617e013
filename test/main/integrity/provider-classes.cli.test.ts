// Python counts providers in dicts, so equal values are one provider: 1, 1.0, 1e0 and true; 10 and
// 1E1; 1e400 and 1e999 (inf) — named by the first one seen (the baseline half's, else the current
// half's) — while the string "a" and a number stay apart. On the old code each spelling counted
// apart: a chain sealed with 1 in its older half and 1.0 in its newer read "SHIFT detected" (exit 1)
// where Python reads stable, and the text printed `true`/`Infinity` where Python's str() prints
// `True`/`inf`. A body holding NaN or Infinity anywhere (json.loads reads them, JSON.parse refuses the
// body) counted as `unknown`: a provider shift Python never saw. Generated chains of numeric, boolean and string providers are held to a Python model
// of the detector (testdata/pyprov.py), the JSON's bytes and the text's lines, under both body readers.
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'

const hasPython = spawnSync('python3', ['--version']).status === 0
const scratch = scratchDir('provider-classes')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const shiftOf = (json: string): string =>
  json.slice(json.indexOf('"provider_shift":') + 17, json.indexOf(',"rate_anomalies"'))
const providerLines = (text: string): string =>
  text
    .split('\n')
    .filter((l) => l.startsWith('Provider distribution') || /^ {2}WARN {2}.*: .*% -> .*pp\)$/.test(l))
    .join('\n')

describe.skipIf(!hasPython)('providers counted by equality class, as Python counts them', () => {
  const holdToModel = (args: string[]): { path: string; json: string }[] => {
    const dir = join(scratch.dir, args.join('-'))
    mkdirSync(dir)
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pyprov.py'), dir, ...args], {
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as { path: string; json: string; text: string }[]
    for (const c of cases) {
      for (const env of [{}, { BIJOTEL_NATIVE: '0' }] as Record<string, string>[]) {
        const j = bijotel(['integrity', '--db', c.path, '--json'], env)
        expect(shiftOf(j.stdout), `${c.path} ${JSON.stringify(env)}`).toBe(c.json)
        expect(j.code).toBe(c.json === 'null' ? 0 : 1)
        const t = bijotel(['integrity', '--db', c.path], env)
        expect(providerLines(t.stdout), `${c.path} ${JSON.stringify(env)}`).toBe(c.text)
      }
    }
    return cases
  }

  it('generated chains: JSON bytes and text lines, native and JSON.parse body readers', () => {
    const cases = holdToModel(['16', '4242'])
    expect(cases.filter((c) => c.json !== 'null').length).toBeGreaterThan(4) // the detector is exercised
  }, 240_000)

  // A string provider spelled as a number's JSON key ("1" and 1, "true" and true, "Infinity" and
  // inf): Python's dict holds two keys, json.dumps prints the key twice and the text a line for each.
  // The old code kept one entry a spelling: the other class's shift was dropped, and a chain moving
  // from "1" to 1 printed only `1: 0.0% -> 100.0%`.
  it('generated chains whose providers share a spelling: every shifted class printed, as Python prints it', () => {
    const cases = holdToModel(['16', '777', 'same'])
    const twice = cases.filter((c) => {
      const keys = [...c.json.matchAll(/"((?:[^"\\]|\\.)*)":\{"baseline_pct"/g)].map((m) => m[1])
      return new Set(keys).size < keys.length
    })
    expect(twice.length).toBeGreaterThan(1) // the same key printed twice does occur
  }, 240_000)
})
