// Say only what the evidence proves (issue 39), on generated histories (./claims-generator.ts):
// honest histories make no finding; attacks make findings exactly on their seqs; rows of another
// chain sealed under the same key, planted wherever the reader searches, are never placed, never a
// finding and never called deleted or superseded; archived rows are `archived` when their segment is
// given and a notice (not a finding) when it is not.
import { statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { generateClaims, type Attack, type ClaimsCase, type Foreign, type History } from './claims-generator'

const HISTORIES: History[] = [
  'appends-checkpoints',
  'vacuum',
  'archive-no-segment',
  'archive-with-segment',
  'chain-reset',
  'rollback',
  'rotation',
]
const ATTACKS: Attack[] = ['none', 'delete-middle', 'truncate-tail', 'reseal-tail', 'body-edit']
const FOREIGN: Foreign[] = ['none', 'freelist', 'past-end', 'old-wal']

function cases(): ClaimsCase[] {
  const out: ClaimsCase[] = []
  let i = 0
  const add = (history: History, attack: Attack, foreign: Foreign): void => {
    const pageSize = [1024, 4096, 512, 8192][i % 4]!
    const journal = i % 3 === 2 ? 'delete' : 'wal'
    i++
    out.push({
      name: `${history} + ${attack} + foreign ${foreign} (${journal}, p${pageSize})`,
      pageSize,
      journal,
      history,
      attack,
      foreign,
      rows: 30,
    })
  }
  for (const h of HISTORIES) for (const f of FOREIGN) add(h, 'none', f)
  for (const a of ATTACKS.slice(1)) for (const f of FOREIGN) add('appends-checkpoints', a, f)
  for (const a of ATTACKS.slice(1)) add(HISTORIES[(i * 3) % HISTORIES.length]!, a, FOREIGN[i % 4]!)
  // A foreign run joined to the live chain by a record forged without the key (after the cases above,
  // so that their seeds and shapes stay as they were).
  for (const h of HISTORIES) add(h, 'none', 'bridge')
  for (const a of ATTACKS.slice(1)) add('appends-checkpoints', a, 'bridge')
  return out
}

/** Findings only on the attack's seqs (or, for seq_gap and link_mismatch, the live row right after them). */
function onAttack(v: VerifyVerdict, attacked: Set<bigint>, name: string): void {
  for (const f of v.findings) {
    let hit = false
    for (let s = f.from_seq; s <= f.to_seq && !hit; s++)
      hit =
        attacked.has(BigInt(s)) ||
        ((f.kind === 'seq_gap' || f.kind === 'link_mismatch') && attacked.has(BigInt(s - 1)))
    expect(hit, `${name}: ${f.kind} ${f.from_seq}-${f.to_seq} is not on the attack`).toBe(true)
    if (f.kind === 'truncated' || f.kind === 'deleted' || f.kind === 'rewritten')
      for (let s = f.from_seq; s <= f.to_seq; s++)
        expect(attacked.has(BigInt(s)), `${name}: ${f.kind} covers ${s}`).toBe(true)
  }
}

describe('claims: what recovered rows may be said to be', () => {
  for (const [n, c] of cases().entries()) {
    it(c.name, async () => {
      const g = generateClaims(c, 0xc1a1 + n)
      try {
        // A WAL-mode case is copied while its writer holds the file: the WAL frames are evidence too.
        if (c.journal === 'wal') expect(statSync(`${g.db}-wal`).size, c.name).toBeGreaterThan(32)
        const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
        const segments = g.segments.length > 0 ? await readSegments(g.segments) : undefined
        const { verdict } = await verifyFile(g.db, keys, {
          recover: true,
          workers: 1,
          ...(segments ? { segments } : {}),
        })
        expect(verdict.recovery?.searched, c.name).toBe(true)
        const rows = verdict.recovered ?? []
        // Foreign rows: never placed, never a claim.
        for (const r of rows)
          if (g.foreign.has(r.hmac_hash)) {
            expect(r.status, `${c.name}: foreign row`).toBe('unplaced')
            expect(r.seq).toBeNull()
          }
        if (
          c.foreign === 'freelist' ||
          c.foreign === 'bridge' ||
          (c.foreign === 'past-end' && c.pageSize >= 1024)
        )
          expect(
            rows.some((r) => g.foreign.has(r.hmac_hash)),
            `${c.name}: foreign rows found`,
          ).toBe(true)
        // A foreign run is one run.
        const runs = new Set(rows.filter((r) => g.foreign.has(r.hmac_hash)).map((r) => r.run))
        expect(runs.size).toBeLessThanOrEqual(1)
        if (c.attack === 'none') {
          expect(verdict.findings, c.name).toEqual([])
          expect(verdict.valid, c.name).toBe(true)
        } else if (c.attack === 'truncate-tail' && !rows.some((r) => r.status === 'deleted')) {
          // Nothing links the cut rows to the head (they did not survive, or the row next to the head
          // did not): no finding can be proven; the sqlite_sequence witness still says so.
          expect(verdict.findings, c.name).toEqual([])
          expect(
            verdict.notices?.some((x) => x.includes('sqlite_sequence')),
            c.name,
          ).toBe(true)
        } else {
          expect(verdict.valid, c.name).toBe(false)
          onAttack(verdict, g.attacked, c.name)
        }
        if (c.attack === 'truncate-tail' && rows.some((r) => r.status === 'deleted'))
          expect(
            verdict.findings.some((f) => f.kind === 'truncated'),
            c.name,
          ).toBe(true)
        // Placed claims are only about rows of this chain, at the attack's seqs (a record no key proves,
        // as the forged bridge, claims nothing: its links are not sealed).
        for (const r of rows)
          if ((r.status === 'deleted' || r.status === 'superseded') && r.key_index !== null)
            expect(g.attacked.has(BigInt(r.seq!)), `${c.name}: ${r.status} ${r.seq}`).toBe(true)
        if (c.history === 'archive-with-segment')
          expect(
            rows
              .filter((r) => r.seq !== null && !g.live.has(BigInt(r.seq)) && !g.attacked.has(BigInt(r.seq)))
              .every((r) => r.status === 'archived'),
          ).toBe(true)
        if (c.history === 'archive-no-segment' && rows.some((r) => r.status === 'before_live'))
          expect(verdict.notices?.some((x) => x.includes('stood before the live chain'))).toBe(true)
        if (c.attack === 'body-edit' && c.journal === 'wal') {
          // The original (in the database file behind the WAL, or its freed space) is recovered and named.
          const q = [...g.attacked][0]!
          const orig = rows.find((r) => r.seq === Number(q) && r.status === 'superseded')
          if (orig) {
            expect(orig.original, c.name).toBe(true)
            expect(orig.changed).toContain('canonical_hash')
          }
        }
      } finally {
        g.cleanup()
      }
    })
  }
})
