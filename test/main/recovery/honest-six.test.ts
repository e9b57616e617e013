// Round-6 honest histories never make a finding (issue 39): ./honest-six.ts's steps (a second table
// holding a copy or a second chain under the same key, ATTACH writes, incremental_vacuum(N), checkpoints
// under a reader's snapshot, cell_size_check, mmap, unsealed columns updated across the overflow
// threshold). Verified with every key, without segments, with them, reversed and each twice.
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { generateSix, sixCase, type SixCase } from './honest-six'

const RANDOM = Number(process.env.BIJOTEL_SIX_CASES ?? 24)
const BASE = Number(process.env.BIJOTEL_SIX_SEED ?? 0x6a11)

const CASES: { c: SixCase; seed: number }[] = [
  ...Array.from({ length: RANDOM }, (_, n) => ({
    c: sixCase(new Rng(BASE + n), n % 2 === 0 ? 'delete' : 'wal', 4 + (n % 9)),
    seed: BASE + n,
  })),
]

describe('round-6 honest histories make no finding', () => {
  for (const [n, { c, seed }] of CASES.entries()) {
    it(`#${n} seed ${seed} ${c.journal} p${c.pageSize}: ${c.steps.join(', ')}${c.crash ? ', crash' : ''}`, async () => {
      const g = generateSix(c, seed)
      try {
        const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
        const runs =
          g.segments.length > 0
            ? [
                undefined,
                await readSegments(g.segments),
                await readSegments([...g.segments].reverse()),
                await readSegments([...g.segments, ...g.segments]),
              ]
            : [undefined]
        for (const segments of runs) {
          const { verdict } = await verifyFile(g.db, keys, {
            recover: true,
            workers: 1,
            ...(segments ? { segments } : {}),
          })
          const what = `${g.log.join(', ')}${segments ? ' (with segments)' : ''}`
          expect(
            verdict.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`),
            `${what}: ${JSON.stringify(verdict.recovery)}`,
          ).toEqual([])
          expect(verdict.valid, what).toBe(true)
          for (const r of verdict.recovered ?? [])
            if (r.key_index !== null)
              expect(['deleted', 'superseded'], `${what}: seq ${r.seq}`).not.toContain(r.status)
        }
      } finally {
        g.cleanup()
      }
    }, 60_000)
  }
})
