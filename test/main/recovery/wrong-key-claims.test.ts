// A wrong key, or a rotated key missing (issue 39, "Keys"): no row is proven, so no recovered row is a
// finding, and the words for the rows nothing places say what the evidence allows — that they may be
// rows of this chain under a key not given — never only "rows of another chain" (their links are not
// sealed by any given key, so "not linked to this chain" would say more than the evidence proves).
// Generated over the claims histories and attacks (./claims-generator.ts).
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { recoveryBlock } from '../../../src/main/cli/commands/recovered-text'
import { Rng } from '../reliability/chainkit'
import { generateClaims, type Attack, type ClaimsCase, type History } from './claims-generator'

const CASES: { c: ClaimsCase; keys: 'wrong' | 'first-only' }[] = []
const ATTACKS: Attack[] = ['none', 'reseal-tail', 'truncate-tail', 'delete-middle', 'body-edit']
const HISTORIES: History[] = ['appends-checkpoints', 'rotation', 'rollback', 'chain-reset']
let i = 0
for (const history of HISTORIES)
  for (const attack of ATTACKS) {
    const keys = history === 'rotation' && i % 2 === 0 ? 'first-only' : 'wrong'
    CASES.push({
      c: {
        name: `${history} + ${attack}, ${keys === 'wrong' ? 'a wrong key' : 'the rotated key missing'}`,
        pageSize: [1024, 4096][i % 2]!,
        journal: i % 3 === 2 ? 'delete' : 'wal',
        history,
        attack,
        foreign: i % 4 === 1 ? 'freelist' : 'none',
        rows: 30,
      },
      keys,
    })
    i++
  }

const RECOVERY_KINDS = new Set(['truncated', 'rewritten', 'deleted'])

describe('a wrong or missing key: no recovered row is a finding, and the words say so', () => {
  for (const [n, { c, keys: which }] of CASES.entries())
    it(c.name, async () => {
      const g = generateClaims(c, 0x3e7 + n)
      try {
        const keys: KeyMaterial[] =
          which === 'wrong'
            ? [{ index: 0, encoding: 'hex', bytes: new Rng(n).bytes(32) }]
            : [{ index: 0, encoding: 'hex', bytes: g.keys[0]! }]
        const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
        const rows = verdict.recovered ?? []
        if (which === 'wrong') {
          for (const r of rows) expect(r.key_index, c.name).toBeNull()
          // No recovered row makes a finding under a key that proves none of them.
          expect(
            verdict.findings.filter((f) => RECOVERY_KINDS.has(f.kind) && f.evidence !== undefined),
            c.name,
          ).toEqual([])
        }
        const unproven = rows.filter((r) => r.key_index === null && r.status === 'unplaced')
        if (unproven.length > 0) {
          const text = recoveryBlock(verdict.recovery, rows, [], verdict.findings).join('\n')
          expect(text, c.name).toContain('a key not given')
          expect(verdict.recovery?.note, c.name).toContain('a key not given')
        }
      } finally {
        g.cleanup()
      }
    })
})
