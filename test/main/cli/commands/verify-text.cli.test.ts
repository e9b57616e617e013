// `bijotel verify`'s text where it meets the reference's (issue 27 items 6 and 7): the Boundary:
// line prints the first row's stored prev_hash and says when it does not match its predecessor,
// and the no-secret message's first line is the reference's sentence (bijotel-reference.md §4.1).
// Chains are sealed in a temporary folder and edited there with SQLite; SQLite is also the oracle
// for the stored hashes the lines must show.
import { copyFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { beforeEvidence } from '../../testing/evidence'
import { KEY_HEX, SmallChains } from '../testing/small-chain'

let kit: SmallChains
let chain: string
beforeAll(() => {
  ensureBuilt()
  kit = new SmallChains()
  chain = kit.write(40)
})
afterAll(() => kit.dispose())

function copyOf(src: string, name: string): string {
  const p = kit.path(name)
  copyFileSync(src, p)
  return p
}

const hex16 = (v: unknown): string => String(v).slice(0, 16)

describe('Boundary: line (item 6)', () => {
  it("a segment linked to its predecessor: the reference's words", () => {
    const r = bijotel(['verify', '--db', chain, '--secret-hex', KEY_HEX, '--range', '11:20'])
    expect(r.code).toBe(0)
    expect(beforeEvidence(r.stdout)).toBe(
      [
        'Chain segment VALID: seq 11-20 (10 entries of 40 total).',
        `Boundary: prev_hash at seq=11 = ${hex16(kit.column(chain, 11, 'prev_hash'))}... (matches predecessor in same DB)`,
        '',
      ].join('\n'),
    )
  })

  it('predecessor deleted: the stored prev_hash is printed, and that it does not match', () => {
    const p = copyOf(chain, 'pred-deleted.db')
    kit.edit(p, 'DELETE FROM chain WHERE seq = 39')
    const stored = String(kit.column(p, 40, 'prev_hash'))
    const pred = String(kit.column(p, 38, 'hmac_hash'))
    expect(stored).not.toBe(pred)
    const r = bijotel(['verify', '--db', p, '--secret-hex', KEY_HEX, '--last', '1'])
    expect(r.code).toBe(3)
    expect(r.stderr).toBe('Chain BROKEN at seq=40: prev_hash mismatch (chain broken)\n')
    const line = r.stdout.split('\n').find((l) => l.startsWith('Boundary:'))
    expect(line).toBe(
      `Boundary: prev_hash at seq=40 = ${hex16(stored)}... (does NOT match predecessor seq=38 in same DB, whose hmac_hash is ${hex16(pred)}...)`,
    )
    expect(line).not.toContain('matches predecessor')
    const j = JSON.parse(
      bijotel(['verify', '--db', p, '--secret-hex', KEY_HEX, '--last', '1', '--json']).stdout,
    )
    expect(j.boundary).toMatchObject({
      seq: 40,
      kind: 'predecessor',
      prev_hash: stored,
      predecessor: { seq: 38, hmac_hash: pred },
    })
  })

  it("no predecessor in the file: the stored prev_hash, trusted, in the reference's words", () => {
    const p = copyOf(chain, 'prefix-deleted.db')
    kit.edit(p, 'DELETE FROM chain WHERE seq <= 10')
    const r = bijotel(['verify', '--db', p, '--secret-hex', KEY_HEX, '--range', '11:'])
    expect(r.code).toBe(0)
    const text = beforeEvidence(r.stdout).split('\n')
    expect(text.slice(0, 2)).toEqual([
      'Chain segment VALID: seq 11-40 (30 entries of 30 total).',
      `Boundary: prev_hash at seq=11 = ${hex16(kit.column(p, 11, 'prev_hash'))}... (boundary — predecessor not in this DB (use verify-continuity to confirm cross-segment))`,
    ])
    // What follows is only what recovery found of the deleted rows: never a finding (issue 39).
    for (const line of text.slice(2).filter((l) => /^(Recovered|Recovery|\s+run #)/.test(l)))
      expect(line).not.toMatch(/\b(truncated|rewritten|deleted)\b.*finding(?!s\))/)
    expect(text.filter((l) => /^(Findings| {2}(truncated|rewritten|deleted) )/.test(l))).toEqual([])
  })
})

describe('no secret (item 7)', () => {
  it("the first line is the reference's sentence; the hint is on the second", () => {
    const r = bijotel(['verify', '--db', chain])
    expect(r.code).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toBe(
      'ERROR: HMAC secret required. Provide via BIJOTEL_HMAC_SECRET env var or --secret-hex flag.',
    )
    expect(lines[1]).toMatch(/^\(or --secret-text for a raw secret; --secret-file PATH or --secret-stdin/)
    expect(r.stdout).toBe('')
  })
})
