// Two shifted providers of one spelling (the string "1" and the number 1, "true" and true,
// "Infinity" and inf) are two keys in Python's dict; the CLI prints both (text and --json). The
// report's file, its HTML page and the app read the shifts from the report's data: on the old code
// that data held one entry a spelling, so the report and the app's panel and chart dropped the other
// provider's shift the CLI printed. Now `same_spelling` holds it and one reading
// (shared/provider-shifts.ts) serves every place. Generated chains (testdata/pyprov.py, a Python
// model of the detector): the report's items equal the model's keys, the app's lines the CLI's
// WARN lines (values and order), the report validates against its schema and `report verify` reads
// it back.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { shiftLines } from '../../../src/renderer/src/lib/integrity'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { reportValidator } from '../testing/report-schema'

const hasPython = spawnSync('python3', ['--version']).status === 0
const scratch = scratchDir('same-spelling-report')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

/** The model's shift keys in its order (a key twice when two classes share it). */
const modelKeys = (json: string): string[] =>
  [...json.matchAll(/"((?:[^"\\]|\\.)*)":\{"baseline_pct"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string)
/** A shift line without its provider's name (the CLI prints Python's str(), `True` for `true`). */
const values = (line: string): string => line.slice(line.lastIndexOf(': '))

describe.skipIf(!hasPython)('same-spelling providers in the report and the app', () => {
  it('every shifted class in the report, its page and the app, as the CLI prints them', () => {
    const dir = join(scratch.dir, 'chains')
    mkdirSync(dir)
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pyprov.py'), dir, '14', '9191', 'same'], {
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as { path: string; json: string }[]
    const validate = reportValidator()
    let twice = 0
    for (const [i, c] of cases.entries()) {
      const keys = c.json === 'null' ? [] : modelKeys(c.json)
      if (new Set(keys).size < keys.length) twice++
      const out = join(scratch.dir, `r${i}.json`)
      const w = bijotel(['report', '--db', c.path, '-o', out])
      expect(w.code, w.stderr).toBe(0)
      const report = JSON.parse(readFileSync(out, 'utf8')) as AuditReport
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
      const integrity = report.integrity!.report
      const app = shiftLines(integrity)
      expect(app.length, c.path).toBe(keys.length)
      const cli = bijotel(['integrity', '--db', c.path])
        .stdout.split('\n')
        .filter((l) => l.startsWith('  WARN  ') && l.endsWith('pp)'))
      expect(app.map(values), c.path).toEqual(cli.map(values))
      const page = join(scratch.dir, `r${i}.html`)
      expect(bijotel(['report', '--db', c.path, '-o', page, '--format', 'html']).code).toBe(0)
      const html = readFileSync(page, 'utf8')
      for (const k of keys) expect(html, `${c.path} ${k}`).toContain(k.replace(/&/g, '&amp;'))
      const v = bijotel(['report', 'verify', out, '--db', c.path])
      expect(v.code, v.stdout + v.stderr).toBe(0)
    }
    expect(twice).toBeGreaterThan(1) // the generator does make two classes of one spelling shift
  }, 300_000)
})
