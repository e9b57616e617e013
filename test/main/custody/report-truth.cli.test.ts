// What a reader sees of a report is what is signed and checked (issue 38, second round). Generators:
// - a member the schema does not name, put into every object of a real signed report (re-signed
//   by the signer, so only the member is new; also inside the unsigned signature block): refused,
//   naming its path, as JSON and as the page drawn from it, at report verify and verify --prior;
// - every integer of a real report written as `N.0`, `Ne0`, `N0e-1` (and `-0`): Python reads a
//   float where JavaScript reads the integer RFC 8785 signs: refused;
// - every control, bidirectional override, zero-width and line-breaking code point put into the
//   report's free text (its time, tool, paths): report verify's terminal lines, verify-export's
//   header and the report page show it as its number, never raw.
import { createPrivateKey, sign } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { AuditError } from '../../../src/main/base/errors'
import { parseReportText, priorFrom } from '../../../src/main/custody/report-file'
import { renderReportHtml } from '../../../src/main/custody/html/render'
import { checkReportSignature, signingBytes } from '../../../src/main/custody/sign'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, FIXTURES, fingerprintFolder, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('report-truth')
const keys = join(scratch.dir, 'keys')
const PRIV = join(keys, 'bijotel_private.pem')
const PUB = join(keys, 'bijotel_public.pem')
const KEY = ['--secret-hex', SECRETS['primary']!]
let before: Map<string, string>
let n = 0
/** Signed JSON reports of a VALID chain (with replay checks) and of a BROKEN one. */
const R = { clean: {} as Record<string, unknown>, broken: {} as Record<string, unknown> }

function signedReport(db: string, extra: string[] = []): Record<string, unknown> {
  const out = join(scratch.dir, `honest-${++n}.json`)
  const r = bijotel(['report', '--db', db, ...KEY, '--sign-key', PRIV, ...extra, '-o', out])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>
}

beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  expect(bijotel(['keygen', '--output-dir', keys]).code).toBe(0)
  const replays = [1, 2].flatMap((s) => ['--replay', `${s}=${join(FIXTURES, `clean.replay-${s}.txt`)}`])
  R.clean = signedReport(dbPath('clean'), replays)
  R.broken = signedReport(dbPath('body-edit'))
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

/** `doc` signed again by the signer's key: what the signer could make, not an outsider. */
function resigned(doc: Record<string, unknown>): Record<string, unknown> {
  const key = createPrivateKey(readFileSync(PRIV))
  const sig = sign(null, signingBytes(doc), key).toString('base64')
  return { ...doc, signature: { ...(doc['signature'] as object), signature: sig } }
}

/** Every object of a JSON value with its path (at most `per` items of each array). */
function objects(v: unknown, path = '', per = 3): [string, Record<string, unknown>][] {
  if (Array.isArray(v)) return v.slice(0, per).flatMap((x, i) => objects(x, `${path}[${i}]`, per))
  if (typeof v !== 'object' || v === null) return []
  const o = v as Record<string, unknown>
  return [[path, o], ...Object.keys(o).flatMap((k) => objects(o[k], path === '' ? k : `${path}.${k}`, per))]
}

function refused(input: string | Buffer, why: RegExp, what: string): string {
  let msg = ''
  try {
    priorFrom(parseReportText(input, 'crafted'), 'crafted')
  } catch (e) {
    if (!(e instanceof AuditError)) throw e
    msg = e.message
  }
  expect(msg, what).toMatch(why)
  expect(msg).not.toContain('\n')
  return msg
}

/** Member names a crafter might add: plain ones, the prototype's, a known name with a combining mark. */
const NAMES = ['auditor_note', '__proto__', 'constructor', 'toString', 'valid\u0301', 'v\u0430lid', '']

describe('a member the schema does not name', () => {
  it('is refused in every object of a signed report, re-signed by its signer, as JSON and as its page', () => {
    let tried = 0
    for (const base of [R.clean, R.broken]) {
      // The honest report is taken and its signature holds.
      expect(checkReportSignature(parseReportText(JSON.stringify(base), 'honest').doc).status).toBe('valid')
      for (const [path, _o] of objects(base)) {
        if (path === 'signature' || path.startsWith('signature.')) continue
        const name = NAMES[tried % NAMES.length]!
        const doc = structuredClone(base)
        const target = objects(doc).find(([p]) => p === path)![1]
        // defineProperty: `__proto__` as an own member, as JSON.parse makes it.
        Object.defineProperty(target, name, {
          value: 'cleared',
          enumerable: true,
          writable: true,
          configurable: true,
        })
        const signed = resigned(doc)
        const at = path === '' ? name : `${path}.${name}`
        const why = new RegExp(`a member its schema does not name: ${escapeRe(JSON.stringify(at))}`)
        refused(JSON.stringify(signed, null, 2), why, at)
        refused(Buffer.from(renderReportHtml(signed as unknown as AuditReport), 'utf8'), why, `${at} (page)`)
        tried++
      }
    }
    expect(tried).toBeGreaterThan(40)
  })

  it('inside the signature block (which the signature does not cover) is refused', () => {
    for (const name of [...NAMES, 'note', 'verified_by']) {
      const doc = structuredClone(R.broken)
      Object.defineProperty(doc['signature'] as object, name, {
        value: 'checked and confirmed',
        enumerable: true,
        writable: true,
        configurable: true,
      })
      const msg = refused(JSON.stringify(doc), /a member its schema does not name: "signature\./, name)
      expect(msg).toMatch(/the signature does not cover/)
    }
  })

  it('is refused by report verify and verify --prior in one line', () => {
    for (const [member, resign] of [
      ['integrity', true],
      ['signature', false],
    ] as const) {
      const doc = structuredClone(R.clean)
      ;(doc[member] as Record<string, unknown>)['note'] = 'all clear'
      const file = join(scratch.dir, `crafted-${++n}.json`)
      writeFileSync(file, JSON.stringify(resign ? resigned(doc) : doc))
      for (const args of [
        ['report', 'verify', file, '--db', dbPath('clean'), ...KEY, '--public-key', PUB],
        ['verify', '--db', dbPath('clean'), ...KEY, '--prior', file],
      ]) {
        const r = bijotel(args)
        expect(r.code, r.stdout + r.stderr).not.toBe(0)
        expect(r.stderr.split('\n')[0]).toMatch(/a member its schema does not name/)
      }
    }
  })
})

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Every integer-valued number of a JSON value, by path, with a setter. */
function integers(
  v: unknown,
  set: (x: unknown) => void,
  path = '',
  out: [string, number, (x: unknown) => void][] = [],
) {
  if (typeof v === 'number' && Number.isSafeInteger(v)) out.push([path, v, set])
  else if (Array.isArray(v))
    v.slice(0, 3).forEach((x, i) => integers(x, (y) => (v[i] = y), `${path}[${i}]`, out))
  else if (typeof v === 'object' && v !== null)
    for (const k of Object.keys(v)) {
      const o = v as Record<string, unknown>
      integers(o[k], (y) => (o[k] = y), path === '' ? k : `${path}.${k}`, out)
    }
  return out
}

describe('numbers read alike by every reader', () => {
  it('every integer of a signed report written with a fraction or an exponent is refused', () => {
    let tried = 0
    for (const base of [R.clean, R.broken]) {
      const count = integers(structuredClone(base), () => undefined).length
      for (let i = 0; i < count; i++) {
        const doc = structuredClone(base)
        const [path, value, set] = integers(doc, () => undefined)[i]!
        const forms = [`${value}.0`, `${value}e0`, value === 0 ? '0e-1' : `${value}0e-1`, `${value}.00E+0`]
        if (value === 0) forms.push('-0', '-0.0')
        const form = forms[i % forms.length]!
        set('\u0000NUM\u0000')
        const text = JSON.stringify(resigned(doc)).replace('"\\u0000NUM\\u0000"', form)
        // The signature still holds over the canonical form: only the reading differs.
        refused(
          text,
          /not I-JSON \(RFC 7493\): number (.* is the integer|.* is -0|-0 is not)/,
          `${path} = ${form}`,
        )
        tried++
      }
    }
    expect(tried).toBeGreaterThan(100)
  })
})

/** Code points that draw nothing or change how the rest draws (and the line breaks). */
const INVISIBLE: string[] = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)),
  ...'\u00ad\u061c\u200b\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff\u{e0041}',
]
const RAW = /[^\P{Cc}\n]|(?![\u200c\u200d])[\p{Cf}\p{Zl}\p{Zp}]/u

describe('free text of a report is shown as data', () => {
  it('report verify prints no control, override or line break from the report', () => {
    const doc = structuredClone(R.broken)
    delete doc['signature']
    const evidence = doc['evidence'] as { db: Record<string, unknown> }
    const chunks = [INVISIBLE.slice(0, 30), INVISIBLE.slice(30, 60), INVISIBLE.slice(60)]
    // Free text the schema leaves free (generated_at and mtime are held to its instant form, tool's
    // members to what the writer writes).
    doc['verification_note'] = `note${chunks[0]!.join('x')}${chunks[1]!.join('y')}`
    evidence.db['path'] = `/e\nReport verify: OK \u2014 forged\u001b[8m${chunks[2]!.join('z')}chain.db`
    ;(evidence as unknown as Record<string, unknown>)['method'] = `copied\r\u001b[2K${INVISIBLE.join('')}`
    const file = join(scratch.dir, `crafted-${++n}.json`)
    writeFileSync(file, JSON.stringify(doc))
    const r = bijotel(['report', 'verify', file, '--db', dbPath('body-edit'), ...KEY])
    expect(r.stderr).not.toMatch(/internal error/)
    const lines = r.stdout.split('\n')
    for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(RAW)
    expect(lines.filter((l) => l.startsWith('Report verify:'))).toHaveLength(1)
    expect(r.stdout).toContain('<U+001B>[8m')
    // The same fields as the app and --json receive them: the report's text as data there too.
    const j = bijotel(['report', 'verify', file, '--db', dbPath('body-edit'), ...KEY, '--json'])
    const fields = (JSON.parse(j.stdout) as { fields: { field: string; reported: string }[] }).fields
    expect(fields.length).toBeGreaterThan(10)
    for (const f of fields) expect(f.reported, f.field).not.toMatch(RAW)
  })

  it('the report page draws them as their numbers (outside the embedded JSON)', () => {
    for (const [i, c] of INVISIBLE.entries()) {
      if (c === '\n') continue
      const doc = structuredClone(R.clean)
      delete doc['signature']
      const db = (doc['evidence'] as { db: Record<string, unknown> }).db
      db['path'] = `/e/linux${c}evil/chain.db`
      const page = renderReportHtml(doc as unknown as AuditReport)
      const visible = page.replace(/<script type="application\/json"[\s\S]*?<\/script>/, '')
      expect(visible, `U+${c.codePointAt(0)!.toString(16)} (${i})`).not.toMatch(RAW)
      expect(visible).toContain(
        `linux&lt;U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}&gt;evil`,
      )
      // The page is still the one drawn from its report: it is taken, and shows the number.
      expect(parseReportText(page, 'page').doc['evidence']).toEqual(doc['evidence'])
    }
  })

  it("verify-export's header shows an export's format and count as data", () => {
    const out = join(scratch.dir, `export-${++n}.json`)
    expect(bijotel(['export', '--db', dbPath('clean'), ...KEY, '-o', out]).code).toBe(0)
    const doc = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>
    for (const c of ['\n', '\r', '\u001b', '\u009b', '\u202e', '\u2028']) {
      doc['entries_count'] = `240${c}\n\nExport VALID \u2014 HMAC chain verified.\n\u001b[8m`
      writeFileSync(out, JSON.stringify(doc))
      const r = bijotel(['verify-export', out, ...KEY])
      for (const line of r.stdout.split('\n')) expect(line, JSON.stringify(line)).not.toMatch(RAW)
      expect(r.stdout.match(/^Export VALID/gm) ?? [], r.stdout).toHaveLength(r.code === 0 ? 1 : 0)
    }
  })
})
