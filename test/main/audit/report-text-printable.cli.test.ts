// The report file a person opens (round 8): `bijotel report` wrote the JSON with JSON.stringify,
// which leaves bidi overrides (U+202E), line and paragraph separators (U+2028/9), NEL, C1 controls,
// zero-width characters and the BOM as they are. A provider name the audited party chose (the
// integrity run names each provider that moved) then reordered or broke the lines an editor or `cat`
// shows of the report, as JSON Lines files no longer do. Generated: chains whose provider names hold
// each class of unprintable code point; the report (JSON, signed) must hold none of them raw, read
// back to the same strings (the escapes are JSON's), verify against its chain and be taken as a prior.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasUnprintable } from '../../../src/shared/printable'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { chainWith, hostileNames, NAMES_SECRET } from '../testing/hostile-names'

const scratch = scratchDir('report-text-printable')
afterAll(() => scratch.cleanup())
const SECRET = NAMES_SECRET
const KEYS = join(scratch.dir, 'keys')

beforeAll(() => {
  ensureBuilt()
  expect(bijotel(['keygen', '--output-dir', KEYS]).code).toBe(0)
})

describe('the report file holds no unprintable code point raw', () => {
  for (let n = 0; n < 5; n++) {
    it(`chain #${n}: names written as escapes, read back the same, verified, taken as a prior`, () => {
      const names = hostileNames(n)
      const db = chainWith(scratch.dir, names, n)
      const out = join(scratch.dir, `report-${n}.json`)
      const key = ['--secret-hex', SECRET]
      const w = bijotel([
        'report',
        '--db',
        db,
        ...key,
        '--all',
        '--sign-key',
        join(KEYS, 'bijotel_private.pem'),
        '-o',
        out,
      ])
      expect(w.code, w.stderr).toBe(0)
      const text = readFileSync(out, 'utf8')
      expect(hasUnprintable(text.replace(/\n/g, ''))).toBe(false)
      const shifts = Object.keys(
        (JSON.parse(text) as { integrity: { report: { provider_shift: { shifts: object } } } }).integrity
          .report.provider_shift.shifts,
      )
      for (const name of names) expect(shifts).toContain(name)
      const v = bijotel([
        'report',
        'verify',
        out,
        '--db',
        db,
        ...key,
        '--public-key',
        join(KEYS, 'bijotel_public.pem'),
      ])
      expect(v.code, v.stdout + v.stderr).toBe(0)
      expect(v.stdout).toMatch(/Report verify: OK .*signature valid against the given key/)
      const p = bijotel(['verify', '--db', db, ...key, '--prior', out])
      expect(p.code, p.stdout + p.stderr).toBe(0)
    })
  }
})
