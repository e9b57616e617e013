// The HTML report's source (round 9): the page drew each value through esc() (printable numbers),
// but the embedded report, `<script type="application/json">`, was JSON.stringify's text with only
// `<>&` and U+2028/9 escaped: a provider name the audited party chose holding U+202E, an isolate, a
// C1 control or a zero-width character stood raw in the page's source, so "view source" or an editor
// showed the report's lines reordered. Generated: chains whose provider names hold each class; the
// page (signed) must hold none of them raw anywhere, its embedded report read back to the same
// names, verify against its chain and be taken as a prior; a page with one escape undone is refused.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasUnprintable } from '../../../../src/shared/printable'
import { scratchDir } from '../../reliability/chainkit'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { chainWith, hostileNames, NAMES_SECRET } from '../../testing/hostile-names'

const scratch = scratchDir('report-html-source')
afterAll(() => scratch.cleanup())
const KEYS = join(scratch.dir, 'keys')
const KEY = ['--secret-hex', NAMES_SECRET]

beforeAll(() => {
  ensureBuilt()
  expect(bijotel(['keygen', '--output-dir', KEYS]).code).toBe(0)
})

const embedded = (page: string): string =>
  page.slice(page.indexOf('<script type="application/json"'), page.lastIndexOf('</script>'))

describe('the HTML report holds no unprintable code point raw, its embedded report included', () => {
  for (let n = 0; n < 5; n++) {
    it(`chain #${n}: escaped in the source, read back the same, verified, taken as a prior`, () => {
      const names = hostileNames(n + 7)
      const db = chainWith(scratch.dir, names, n)
      const out = join(scratch.dir, `report-${n}.html`)
      const sign = ['--sign-key', join(KEYS, 'bijotel_private.pem')]
      const w = bijotel(['report', '--db', db, ...KEY, '--all', '--format', 'html', ...sign, '-o', out])
      expect(w.code, w.stderr).toBe(0)
      const page = readFileSync(out, 'utf8')
      expect(hasUnprintable(embedded(page).replace(/\n/g, ''))).toBe(false)
      expect(hasUnprintable(page.replace(/\n/g, ''))).toBe(false)
      const json = embedded(page).slice(embedded(page).indexOf('>') + 1)
      const shifts = Object.keys(
        (JSON.parse(json) as { integrity: { report: { provider_shift: { shifts: object } } } }).integrity
          .report.provider_shift.shifts,
      )
      for (const name of names) expect(shifts).toContain(name)
      const pub = ['--public-key', join(KEYS, 'bijotel_public.pem')]
      const v = bijotel(['report', 'verify', out, '--db', db, ...KEY, ...pub])
      expect(v.code, v.stdout + v.stderr).toBe(0)
      expect(v.stdout).toMatch(/Report verify: OK .*signature valid against the given key/)
      const p = bijotel(['verify', '--db', db, ...KEY, '--prior', out])
      expect(p.code, p.stdout + p.stderr).toBe(0)
      // The raw form (what the old page held) is not the page drawn: refused in one line.
      const m = /\\u(20[0-9a-f]{2}|00[89][0-9a-f]|feff)/.exec(json)
      expect(m).not.toBeNull()
      const raw = join(scratch.dir, `raw-${n}.html`)
      const at = page.indexOf(m![0], page.indexOf('<script type="application/json"'))
      const undone = page.slice(0, at) + String.fromCharCode(parseInt(m![1]!, 16)) + page.slice(at + 6)
      writeFileSync(raw, undone)
      const r = bijotel(['report', 'verify', raw, '--db', db, ...KEY, ...pub])
      expect(r.code).not.toBe(0)
      expect((r.stdout + r.stderr).trim().split('\n').join(' ')).toMatch(/not the one this program draws/)
    })
  }
})
