// Attacks on auto-vacuum files (issue 39, round 8): the chain's cells moved page to page by
// auto-vacuum (a dropped table's pages freed, the chain's last pages moved into them: at commit with
// FULL, by incremental_vacuum with INCREMENTAL), then rows deleted from the middle, the tail cut, the
// tail resealed with the key or a body edited without it — and, with INCREMENTAL, incremental_vacuum
// run again after the attack. Findings lie exactly on the attack's seqs; in WAL mode, where the frames
// before the attack stay, the attack is named whole (deleted, truncated, rewritten). Honest: no finding.
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { generateClaims, type Attack, type ClaimsCase } from './claims-generator'

const ATTACKS: Attack[] = ['none', 'delete-middle', 'truncate-tail', 'reseal-tail', 'body-edit']
const NAMED: Record<Attack, string | null> = {
  none: null,
  'delete-middle': 'deleted',
  'truncate-tail': 'truncated',
  'reseal-tail': 'rewritten',
  'body-edit': 'rewritten',
}

describe('attacks on auto-vacuum files are named on their seqs', () => {
  let n = 0
  for (const av of ['FULL', 'INCREMENTAL'] as const)
    for (const journal of ['wal', 'delete'] as const)
      for (const pageSize of [512, 1024, 4096, 16384])
        for (const attack of ATTACKS) {
          const seed = 0xa7 + n++
          const vacuumAfter = av === 'INCREMENTAL' && n % 2 === 0
          const rows = 20 + (n % 3) * 10
          const name = `${av}${vacuumAfter ? ' (vacuumed after)' : ''} ${journal} p${pageSize} ${rows} rows: ${attack}`
          it(name, async () => {
            const c: ClaimsCase = {
              name,
              pageSize,
              journal,
              history: 'av-moves',
              attack,
              foreign: 'none',
              rows,
              autoVacuum: av,
              vacuumAfter,
            }
            const g = generateClaims(c, seed)
            try {
              const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
              const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
              expect(verdict.recovery?.searched, name).toBe(true)
              const said = verdict.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`)
              if (attack === 'none') {
                expect(said, name).toEqual([])
                expect(verdict.valid, name).toBe(true)
                return
              }
              for (const f of verdict.findings)
                if (f.kind === 'truncated' || f.kind === 'deleted' || f.kind === 'rewritten')
                  for (let s = f.from_seq; s <= f.to_seq; s++)
                    expect(g.attacked.has(BigInt(s)), `${name}: ${f.kind} covers ${s}`).toBe(true)
              for (const r of verdict.recovered ?? [])
                if ((r.status === 'deleted' || r.status === 'superseded') && r.key_index !== null)
                  expect(g.attacked.has(BigInt(r.seq!)), `${name}: ${r.status} ${r.seq}`).toBe(true)
              if (journal === 'wal') {
                const kind = NAMED[attack]!
                const covered = new Set<number>()
                for (const f of verdict.findings)
                  if (f.kind === kind) for (let s = f.from_seq; s <= f.to_seq; s++) covered.add(s)
                for (const s of g.attacked)
                  expect(covered.has(Number(s)), `${name}: ${said.join('; ')}`).toBe(true)
              }
              if (attack !== 'truncate-tail') expect(verdict.valid, name).toBe(false)
            } finally {
              g.cleanup()
            }
          })
        }
})
