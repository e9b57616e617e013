// A report page whose embedded report holds a code point raw that this version writes as a `\u`
// escape (a page from before round 9, or one edited to hide text: a bidi override turns a verdict
// around on screen) is refused, in one line that names the code point and says to check the JSON
// file instead — not only "the page is not the one this program draws". Generated: every kind of
// such code point at seeded string values of a real page, through the same read `report verify` uses.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { parseReportText } from '../../../src/main/custody/report-file'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('report-page-raw')
afterAll(() => scratch.cleanup())
let page = ''

beforeAll(() => {
  ensureBuilt()
  const out = join(scratch.dir, 'page.html')
  const r = bijotel(['report', '--db', dbPath('clean'), '--format', 'html', '-o', out])
  expect(r.code, r.stderr).toBe(0)
  page = readFileSync(out, 'utf8')
})

/** Bidi overrides and isolates, marks, zero-width and invisible format characters, line separators, C1. */
const RAW = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b,
  0x2060, 0xfeff, 0x00ad, 0x2028, 0x2029, 0x0085, 0x009b, 0xe0041,
]

const FREE = ['verification_note', 'path', 'note', 'rotation_note']

describe('a report page with raw invisible characters in its embedded report', () => {
  it('is refused in one line naming the code point (generated)', () => {
    const start = page.indexOf('id="bijotel-report">')
    // The starts of the embedded report's free-text string values (members the schema holds to a
    // pattern, a digest, are refused by it first, in a line of their own).
    const values: number[] = []
    for (const key of FREE)
      for (let i = page.indexOf(`"${key}": "`, start); i >= 0; i = page.indexOf(`"${key}": "`, i + 1))
        values.push(i + key.length + 6)
    expect(values.length).toBeGreaterThan(3)
    const rnd = mulberry32(202)
    const missed: string[] = []
    for (const cp of RAW)
      for (let k = 0; k < 2; k++) {
        const at = values[Math.floor(rnd() * values.length)]!
        const edited = page.slice(0, at) + String.fromCodePoint(cp) + page.slice(at)
        const hex = cp.toString(16).toUpperCase().padStart(4, '0')
        try {
          parseReportText(Buffer.from(edited, 'utf8'), 'page.html')
          missed.push(`U+${hex} at ${at}: taken`)
        } catch (e) {
          const msg = e instanceof AuditError ? e.message : `not an AuditError: ${String(e)}`
          if (!msg.includes(`holds U+${hex} raw where this version writes an escape`) || /[\n\r]/.test(msg))
            missed.push(`U+${hex} at ${at}: ${msg.slice(0, 160)}`)
        }
      }
    expect(missed, `${missed.length} of ${RAW.length * 2}`).toEqual([])
  })

  it('an honest page is taken, and other edits keep the general refusal', () => {
    expect(parseReportText(Buffer.from(page, 'utf8'), 'page.html').format).toBe('html')
    const edited = page.replace('<title>', '<title>x')
    expect(() => parseReportText(Buffer.from(edited, 'utf8'), 'page.html')).toThrow(
      /what a browser shows is not what is signed$/,
    )
  })
})
