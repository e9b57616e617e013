// The deliberate departures from Python BIJOTEL that the README's differences table lists (issue 27
// item 8), each run through the built `bin/bijotel` on chains sealed and edited in a temporary
// folder: what the project answers instead of the reference, so the table stays true.
import { createHash } from 'node:crypto'
import { copyFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../testing/cli'
import { KEY_HEX, SmallChains } from './testing/small-chain'

let kit: SmallChains
let chain: string
beforeAll(() => {
  ensureBuilt()
  kit = new SmallChains()
  chain = kit.write(40)
})
afterAll(() => kit.dispose())

let copies = 0
function edited(sql: string): string {
  const p = kit.path(`edited-${++copies}.db`)
  copyFileSync(chain, p)
  kit.edit(p, sql)
  return p
}

const verify = (db: string, ...args: string[]) =>
  bijotel(['verify', '--db', db, '--secret-hex', KEY_HEX, ...args])
const noTraceback = (s: string): void => {
  expect(s).not.toMatch(/Traceback|\n\s+at |node:internal|internal error/)
}

describe('argument departures', () => {
  it('--last 0 is refused (the reference verifies one row)', () => {
    const r = verify(chain, '--last', '0')
    expect(r.stderr).toBe("ERROR: --last must be a positive integer, got '0'\n")
    expect(r.code).toBe(2)
  })

  it('an empty --secret-hex is refused even with BIJOTEL_HMAC_SECRET set (the reference uses the variable)', () => {
    const r = bijotel(['verify', '--db', chain, '--secret-hex', ''], { BIJOTEL_HMAC_SECRET: KEY_HEX })
    expect(r.stderr).toBe('ERROR: an empty --secret-hex was given\n')
    expect(r.code).toBe(2)
  })

  it('no longer a departure: an output file holding a NUL byte is hashed as the reference hashes it', () => {
    const f = kit.path('nul.txt')
    writeFileSync(f, Buffer.from('- a\u0000bullet'))
    const r = bijotel(['replay', '--db', chain, '--seq', '1', '--output-file', f, '--json'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toMatchObject({
      replay_hash: createHash('sha256').update('- a\u0000bullet').digest('hex'),
    })
  })

  it('--window outside 2..10000 is refused (the reference: 0 = EMPTY CHAIN, negative = whole chain)', () => {
    for (const w of ['0', '1', '10001']) {
      const r = bijotel(['integrity', '--db', chain, '--window', w])
      expect(r.stderr).toBe(`ERROR: --window must be an integer from 2 to 10000, got ${w}\n`)
      expect(r.code).toBe(2)
    }
  })
})

describe('range and boundary departures', () => {
  it('--range A: with rows A-1 and A gone: a trusted boundary, not a false "chain broken"', () => {
    const p = edited('DELETE FROM chain WHERE seq <= 10')
    for (const range of ['5:', '1:']) {
      const r = verify(p, '--range', range)
      expect(r.code).toBe(0)
      expect(r.stdout.split('\n')[0]).toBe('Chain segment VALID: seq 11-40 (30 entries of 30 total).')
      expect(r.stdout.split('\n')[1]).toMatch(
        /^Boundary: prev_hash at seq=11 = [0-9a-f]{16}\.\.\. \(boundary — predecessor not in this DB/,
      )
    }
  })

  it('row A-1 deleted with earlier rows present: --range A: is broken (the reference trusts A and says VALID)', () => {
    const p = edited('DELETE FROM chain WHERE seq = 20')
    const r = verify(p, '--range', '21:', '--json')
    expect(r.code).toBe(3)
    const v = JSON.parse(r.stdout)
    expect(v.findings.map((f: { kind: string; from_seq: number }) => [f.kind, f.from_seq])).toEqual([
      ['seq_gap', 21],
      ['link_mismatch', 21],
    ])
    expect(v.boundary).toMatchObject({ kind: 'predecessor', seq: 21, predecessor: { seq: 19 } })
  })

  it('a trimmed chain: the reference line, then a Boundary: line (the reference prints nothing more)', () => {
    const p = edited('DELETE FROM chain WHERE seq <= 3')
    // The live chain alone (--no-recover): what the reference sees, and the boundary it does not say.
    const r = verify(p, '--no-recover')
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('Chain VALID (37 entries).')
    expect(lines[1]).toMatch(
      /^Boundary: prev_hash at seq=4 = [0-9a-f]{16}\.\.\. \(boundary — predecessor not in this DB/,
    )
    // With recovery (the default), the deleted rows still in the file's free space link to the live
    // chain's first row: they stood before it, which is what archiving leaves too (issue 39). A
    // notice, not a finding, until the archive segments are given.
    const rec = verify(p, '--json')
    expect(rec.code).toBe(0)
    const v = JSON.parse(rec.stdout) as {
      findings: unknown[]
      recovered: { seq: number; status: string }[]
      notices?: string[]
    }
    expect(v.findings).toEqual([])
    expect(v.recovered.filter((r) => r.status !== 'unplaced').map((r) => [r.seq, r.status])).toEqual([
      [1, 'before_live'],
      [2, 'before_live'],
      [3, 'before_live'],
    ])
    // What to do, in words both the CLI and the app can say (issue 35: no flag in the app's text).
    expect(v.notices?.join('\n')).toMatch(/with the archive segments/)
  })
})

describe('inputs the reference crashes on get an answer', () => {
  const hostile = () =>
    edited(`
      UPDATE chain SET canonical_body = X'7b2261747472696275746573223a7b7d2cff7d' WHERE seq = 31;
      UPDATE chain SET canonical_body = CAST('{"attributes":{"gen_ai.provider.name":["a"]}}' AS BLOB) WHERE seq = 32;
      UPDATE chain SET canonical_body = CAST('{"attributes":{"gen_ai.provider.name":{"x":1}}}' AS BLOB) WHERE seq = 33;
      UPDATE chain SET canonical_body = CAST('[1,2]' AS BLOB) WHERE seq = 34;
      UPDATE chain SET canonical_body = CAST(canonical_body AS TEXT) WHERE seq = 35;`)

  it('integrity: invalid UTF-8 bodies and list/dict providers count as provider "unknown"', () => {
    const p = hostile()
    const r = bijotel(['integrity', '--db', p, '--window', '40', '--json'])
    noTraceback(r.stderr)
    expect(r.stderr).toBe('')
    const report = JSON.parse(r.stdout)
    expect(report.window).toBe(40)
    // 4 of the newer 20 rows are "unknown": a 20-point shift, not above the threshold.
    expect(report.provider_shift).toBeNull()
    const low = bijotel(['integrity', '--db', p, '--window', '40', '--provider-shift-pct', '10', '--json'])
    expect(JSON.parse(low.stdout).provider_shift.shifts.unknown).toEqual({
      baseline_pct: 0.0,
      current_pct: 20.0,
      delta_pct: 20.0,
    })
  })

  it('replay: a non-object body has no replay metadata (MISMATCH, exit 3)', () => {
    const r = bijotel(['replay', '--db', hostile(), '--seq', '34', '--output', 'x'])
    noTraceback(r.stderr)
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('  original_hash:  (none — entry has no replay metadata)\n')
  })

  it('verify: a TEXT-typed body is hashed as its UTF-8 bytes (the seal still holds); the edited bodies are found', () => {
    const r = verify(hostile(), '--json')
    noTraceback(r.stderr)
    expect(r.code).toBe(3)
    const v = JSON.parse(r.stdout)
    const [live, ...originals] = v.findings as Record<string, unknown>[]
    expect(live).toEqual({ kind: 'body_hash_mismatch', from_seq: 31, to_seq: 34, count: 4 })
    // Where the file still holds a row's sealed original (issue 39), the finding names it and what
    // changed — only at the edited seqs, only the body.
    for (const f of originals) {
      expect(f).toMatchObject({ kind: 'rewritten', original: 'recovered', changed: ['body'], count: 1 })
      expect([31, 32, 33, 34]).toContain(f['from_seq'])
      expect(f['to_seq']).toBe(f['from_seq'])
    }
  })
})
