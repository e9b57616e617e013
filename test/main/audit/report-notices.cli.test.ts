// The report says every notice verify's text gives of the same file (round 11): the report's verdict
// was built without the sqlite_sequence witness (`Notice: sqlite_sequence records seq N …`, issue 39)
// that `verify` prints and `report verify` derives, so the report said less than verify of the same
// evidence, and report verify listed the notice as "said by the evidence now, not in the report".
// Seeded copies of the fixtures, their sqlite_sequence raised or their tail deleted (or neither): the
// notices of `verify --json` are the report's, in JSON and in the HTML page, and report verify
// finds nothing the evidence says that the report lacks.
import Database from 'better-sqlite3'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('report-notices')
let before: Map<string, string>
beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

const KEYS = ['--secret-hex', SECRETS['primary']!, '--secret-hex', SECRETS['rotated']!]
let n = 0

/** A copy of `fixture` with sqlite_sequence raised by `raise`, or its last `cut` rows deleted. */
function variant(fixture: string, raise: number, cut: number): string {
  const path = join(scratch.dir, `v-${++n}.db`)
  copyFileSync(dbPath(fixture), path)
  const db = new Database(path)
  try {
    db.pragma('journal_mode = DELETE')
    if (raise > 0) db.prepare("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'chain'").run(raise)
    if (cut > 0) db.prepare('DELETE FROM chain WHERE seq > (SELECT max(seq) FROM chain) - ?').run(cut)
  } finally {
    db.close()
  }
  return path
}

describe('report and verify give the same notices', () => {
  it('the witness notice and every other verify notice are in the report (generated)', () => {
    const rnd = mulberry32(1111)
    const fixtures = [
      'clean',
      'rotation',
      'rec-deleted-tail',
      'row-deleted',
      'truncated-tail',
      'resealed-tail',
    ]
    let witnessed = 0
    for (let i = 0; i < 6; i++) {
      const fixture = fixtures[Math.floor(rnd() * fixtures.length)]!
      const kind = Math.floor(rnd() * 3)
      const raise = kind === 1 ? 1 + Math.floor(rnd() * 1000) : 0
      const cut = kind === 2 ? 1 + Math.floor(rnd() * 5) : 0
      const path = variant(fixture, raise, cut)
      const said = `${fixture} raise=${raise} cut=${cut}`
      const v = bijotel(['verify', '--db', path, ...KEYS, '--json'])
      const verdict = JSON.parse(v.stdout) as VerifyVerdict
      const out = join(scratch.dir, `r-${n}.json`)
      const r = bijotel(['report', '--db', path, ...KEYS, '-o', out])
      expect(r.code, `${said}: ${r.stderr}`).toBe(0)
      const report = JSON.parse(readFileSync(out, 'utf8')) as AuditReport
      const notices = verdict.notices ?? []
      if (notices.some((x) => x.startsWith('sqlite_sequence records seq'))) witnessed++
      expect(report.verification?.verdict.notices ?? [], said).toEqual(notices)
      const html = join(scratch.dir, `r-${n}.html`)
      expect(bijotel(['report', '--db', path, ...KEYS, '-o', html, '--format', 'html']).code).toBe(0)
      const page = readFileSync(html, 'utf8')
      for (const x of notices)
        expect(page, said).toContain(`Notice: ${x.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}`)
      const check = bijotel(['report', 'verify', out, '--db', path, ...KEYS])
      expect(check.stdout, said).not.toContain('not in the report')
      expect(check.code, `${said}: ${check.stdout}`).toBe(0)
    }
    expect(witnessed).toBeGreaterThan(1)
  })
})
