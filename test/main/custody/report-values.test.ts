// A report's values are held to its schema (src/main/custody/report-values.ts): a signed report
// reading `generated_at: "yesterday"` or `tool.name: "Official Court Tool"` verified "OK …
// signature valid". The generator mutates every value of honest reports (wrong kinds, strings off
// their pattern, const or enum, numbers past their bounds, members dropped) and holds the reader's
// answer to Ajv's (JSON Schema 2020-12) on the same document: taken exactly when the schema allows
// it. Calendar instants, which a pattern cannot hold, and older schema versions are cases of their own.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createPrivateKey, sign } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { isReport, parseReportText } from '../../../src/main/custody/report-file'
import { signingBytes } from '../../../src/main/custody/sign'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, FIXTURES, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { reportValidator } from '../testing/report-schema'

const scratch = scratchDir('report-values')
const keys = join(scratch.dir, 'keys')
const PRIV = join(keys, 'bijotel_private.pem')
const PUB = join(keys, 'bijotel_public.pem')
const KEY = ['--secret-hex', SECRETS['primary']!]
const validate = reportValidator()
let before: Map<string, string>
let n = 0
const honest: Record<string, Record<string, unknown>> = {}

function signedReport(db: string, extra: string[] = []): Record<string, unknown> {
  const out = join(scratch.dir, `honest-${++n}.json`)
  const r = bijotel(['report', '--db', db, ...KEY, '--sign-key', PRIV, ...extra, '-o', out])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>
}

function resigned(doc: Record<string, unknown>): Record<string, unknown> {
  const { signature: block, ...rest } = doc
  const sig = sign(null, signingBytes(rest), createPrivateKey(readFileSync(PRIV))).toString('base64')
  return { ...rest, signature: { ...(block as object), signature: sig } }
}

beforeAll(() => {
  ensureBuilt()
  before = fingerprintFolder()
  expect(bijotel(['keygen', '--output-dir', keys]).code).toBe(0)
  const replays = [1, 2].flatMap((s) => ['--replay', `${s}=${join(FIXTURES, `clean.replay-${s}.txt`)}`])
  honest['clean'] = signedReport(dbPath('clean'), replays)
  honest['broken'] = signedReport(dbPath('body-edit'))
  honest['rewrite'] = signedReport(dbPath('rec-live-rewrite'))
})
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

/** The reader's answer: null when taken as a report, else its one-line refusal. */
function refusal(doc: unknown): string | null {
  try {
    const read = parseReportText(Buffer.from(JSON.stringify(doc)), 'crafted')
    // Not taken as a report at all (`$schema` or `schema_version` changed): every check refuses it.
    return isReport(read.doc) ? null : 'not a report'
  } catch (e) {
    if (!(e instanceof AuditError)) throw e
    expect(e.message.split('\n')).toHaveLength(1)
    return e.message
  }
}

type Path = (string | number)[]

/** Every value's path (at most two items of each array), containers before their members. */
function paths(v: unknown, at: Path = []): Path[] {
  const out: Path[] = at.length > 0 ? [at] : []
  if (Array.isArray(v)) v.slice(0, 2).forEach((x, i) => out.push(...paths(x, [...at, i])))
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]))
  return out
}

function trimmed(v: unknown): unknown {
  if (Array.isArray(v)) return v.slice(0, 2).map(trimmed)
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trimmed(x)]))
  return v
}

function edit(doc: Record<string, unknown>, at: Path, value: unknown, drop = false): Record<string, unknown> {
  const copy = structuredClone(doc)
  let o = copy as Record<string | number, unknown>
  for (const k of at.slice(0, -1)) o = o[k] as Record<string | number, unknown>
  const last = at[at.length - 1]!
  if (drop && !Array.isArray(o)) delete o[last]
  else o[last] = value
  return copy
}

/** Values of other kinds and forms than `v` (none a member name the schema lacks). */
function variants(v: unknown): unknown[] {
  const out: unknown[] = [null, true, 0, -1, 7.5, 'x', '', {}, []]
  if (typeof v === 'string')
    out.push(`${v}x`, ` ${v}`, v.toUpperCase(), v.slice(1), `${v}\n`, `\u202e${v}`, v.replace(/\d/, 'a'))
  if (typeof v === 'number') out.push(v + 1, v - 1, -v, String(v))
  if (typeof v === 'boolean') out.push(!v)
  return out
}

describe('report values are held to the schema', () => {
  it('honest reports of VALID, BROKEN and recovered chains are taken', () => {
    for (const [name, doc] of Object.entries(honest)) {
      expect(validate(doc), name).toBe(true)
      expect(refusal(doc), name).toBeNull()
    }
  })

  it('every mutated value is taken exactly when the schema allows it (Ajv as the oracle)', () => {
    let refused = 0
    let cases = 0
    for (const [name, full] of Object.entries(honest)) {
      // Arrays cut to two items (each item's members are all still there): the cases stay many, and
      // each document small enough to read thousands of times.
      const doc = trimmed(full) as Record<string, unknown>
      expect(validate(doc), name).toBe(true)
      for (const at of paths(doc)) {
        if (at[0] === 'signature') continue // the signature block's own checks answer for it
        const original = at.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], doc)
        const docs = variants(original).map((v) => edit(doc, at, v))
        if (typeof at[at.length - 1] === 'string') docs.push(edit(doc, at, undefined, true))
        for (const d of docs) {
          cases++
          const allowed = validate(d)
          const why = refusal(d)
          const where = `${name} ${JSON.stringify(at)} -> ${JSON.stringify(d === doc ? null : at.reduce<unknown>((o, k) => (o as Record<string | number, unknown> | undefined)?.[k], d))}`
          if (allowed) expect(why, where).toBeNull()
          else {
            expect(why, where).not.toBeNull()
            refused++
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(3000)
    expect(refused).toBeGreaterThan(1000)
  }, 180_000)

  it('an instant the pattern admits but the calendar does not is refused; real ones are taken', () => {
    const doc = honest['clean']!
    for (const bad of [
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:60Z',
      '2026-00-10T00:00:00Z',
    ]) {
      expect(refusal(edit(doc, ['generated_at'], bad)), bad).toMatch(
        /^crafted: not a report this version can check: generated_at is ".*", not an instant on the calendar/,
      )
      expect(refusal(edit(doc, ['evidence', 'db', 'mtime'], bad)), bad).toMatch(/evidence\.db\.mtime/)
    }
    for (const good of ['2024-02-29T23:59:59.999Z', '0099-01-01T00:00:00Z', '2026-12-31T23:59:59Z'])
      expect(refusal(edit(doc, ['generated_at'], good)), good).toBeNull()
  })

  it('tool is held whole to what the writer writes: text after a version, in a platform, refused', () => {
    // Round 9: the schema's tool patterns were anchored at the start only ("^[0-9]+\\.[0-9]+\\.[0-9]+",
    // "^v[0-9]+\\.", any platform), so a report reading tool.version "0.1.0 — certified by the court"
    // or a platform holding a line of its own verified OK, the page and the terminal showing it.
    const doc = honest['clean']!
    const tool = doc['tool'] as Record<string, string>
    const tails = [' certified', 'X', '\n', '\u202e', ' (VALID)', '+build.7', '-', '.4', '\u0000']
    for (const [member, honestValue] of [
      ['version', tool['version']!],
      ['node', tool['node']!],
      ['platform', tool['platform']!],
    ] as const) {
      for (const tail of tails) {
        const crafted = edit(doc, ['tool', member], honestValue + tail)
        expect(validate(crafted), `${member} ${JSON.stringify(honestValue + tail)}`).toBe(false)
        expect(refusal(crafted), `${member} ${JSON.stringify(honestValue + tail)}`).toMatch(
          new RegExp(`^crafted: not a report this version can check: tool\\.${member} is `),
        )
      }
    }
    // What the writer writes, on every platform and Node release line, is taken.
    for (const [member, value] of [
      ['version', '0.1.0'],
      ['version', '12.0.3-rc.1'],
      ['node', 'v20.20.2'],
      ['node', 'v24.0.0-nightly20250101a1b2c3'],
      ['platform', 'linux-x64'],
      ['platform', 'win32-arm64'],
      ['platform', 'darwin-arm64'],
      ['platform', 'linux-riscv64'],
    ] as const)
      expect(refusal(edit(doc, ['tool', member], value)), `${member} ${value}`).toBeNull()
  })

  it('a report of an older schema version may lack later members; one of this version may not', () => {
    const old = edit(edit(honest['clean']!, ['recovery'], undefined, true), ['coverage'], undefined, true)
    expect(refusal({ ...old, schema_version: '1.0.0' })).toBeNull()
    expect(refusal(old)).toMatch(/^crafted: not a report this version can check: recovery is absent/)
    // Present members are held to the schema whatever the version says.
    expect(refusal({ ...old, schema_version: '1.0.0', generated_at: 'yesterday' })).toMatch(/generated_at/)
    expect(refusal({ ...old, schema_version: '9.0.0' })).toMatch(/schema_version is "9\.0\.0"/)
  })

  it('report verify and verify --prior refuse a re-signed report whose shown values are off the schema', () => {
    const doc = honest['clean']!
    for (const [what, crafted] of [
      ['generated_at', { ...doc, generated_at: 'yesterday' }],
      ['tool.name', { ...doc, tool: { ...(doc['tool'] as object), name: 'Official Court Tool' } }],
      ['tool', { ...doc, tool: null }],
    ] as const) {
      const file = join(scratch.dir, `crafted-${++n}.json`)
      writeFileSync(file, JSON.stringify(resigned(crafted)))
      const r = bijotel(['report', 'verify', file, '--db', dbPath('clean'), ...KEY, '--public-key', PUB])
      expect(r.code, `${what}: ${r.stdout}`).toBe(2)
      expect(r.stdout).not.toMatch(/OK/)
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1)
      expect(r.stderr).toContain(`not a report this version can check: ${what}`)
      const p = bijotel(['verify', '--db', dbPath('clean'), '--no-recover', ...KEY, '--prior', file])
      expect(p.code, what).toBe(2)
      expect(p.stderr).toContain(`not a report this version can check: ${what}`)
    }
  })
})
