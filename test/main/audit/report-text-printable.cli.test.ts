// The report file a person opens (round 8): `bijotel report` wrote the JSON with JSON.stringify,
// which leaves bidi overrides (U+202E), line and paragraph separators (U+2028/9), NEL, C1 controls,
// zero-width characters and the BOM as they are. A provider name the audited party chose (the
// integrity run names each provider that moved) then reordered or broke the lines an editor or `cat`
// shows of the report, as JSON Lines files no longer do. Generated: chains whose provider names hold
// each class of unprintable code point; the report (JSON, signed) must hold none of them raw, read
// back to the same strings (the escapes are JSON's), verify against its chain and be taken as a prior.
import Database from 'better-sqlite3'
import { createHash, createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasUnprintable } from '../../../src/shared/printable'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('report-text-printable')
afterAll(() => scratch.cleanup())
const SECRET = '62696a6f74656c2d64656d6f2d7365637265742d6e6f742d666f722d70726f64'
const KEYS = join(scratch.dir, 'keys')

beforeAll(() => {
  ensureBuilt()
  expect(bijotel(['keygen', '--output-dir', KEYS]).code).toBe(0)
})

/** 80 rows: openai, then the four `names` in turn (each 25% of the second half: each a shift). */
function chainWith(names: string[], n: number): string {
  const path = join(scratch.dir, `chain-${n}.db`)
  const db = new Database(path)
  db.exec(CHAIN_TABLE_DDL)
  const ins = db.prepare(
    `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
     canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
  )
  let prev = '0'.repeat(64)
  let ts = 1_764_000_000_000_000_000n
  db.transaction(() => {
    for (let i = 1; i <= 80; i++) {
      ts += 60_000_000_000n
      const body = Buffer.from(
        JSON.stringify({
          attributes: { 'gen_ai.provider.name': i > 40 ? names[i % names.length]! : 'openai' },
          end_time_ns: ts.toString(),
          kind: 'CLIENT',
          name: 'chat',
          start_time_ns: (ts - 1000n).toString(),
        }),
      )
      const canonical = createHash('sha256').update(body).digest('hex')
      const hmac = createHmac('sha256', Buffer.from(SECRET, 'hex'))
        .update(prev + canonical, 'utf8')
        .digest('hex')
      ins.run(i, ts, 'a'.repeat(32), 'b'.repeat(16), 'chat', 'CLIENT', body, canonical, prev, hmac, null)
      prev = hmac
    }
  })()
  db.close()
  return path
}

const UNPRINTABLE = [
  '\u202e',
  '\u202d',
  '\u2066',
  '\u2069',
  '\u200f',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u009b',
  '\u007f',
  '\u200b',
  '\u2060',
  '\ufeff',
  '\u061c',
  '\u{e0041}',
  '\u001b',
  '\u0000',
  '\u00ad',
]

function hostileNames(seed: number): string[] {
  const r = mulberry32(seed)
  return Array.from({ length: 4 }, (_, k) => {
    const c = UNPRINTABLE[(seed * 4 + k) % UNPRINTABLE.length]!
    const d = UNPRINTABLE[Math.floor(r() * UNPRINTABLE.length)]!
    return [`${c}evil`, `ok${c}`, `a${c}b${d}`, `${c}${d}\n"delta_pct": 0`][k]!
  })
}

describe('the report file holds no unprintable code point raw', () => {
  for (let n = 0; n < 5; n++) {
    it(`chain #${n}: names written as escapes, read back the same, verified, taken as a prior`, () => {
      const names = hostileNames(n)
      const db = chainWith(names, n)
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
