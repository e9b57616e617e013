// Round-6 honest histories never make a finding (issue 39): ./honest-six.ts's steps (a second table
// holding a copy or a second chain under the same key, ATTACH writes, incremental_vacuum(N), checkpoints
// under a reader's snapshot, cell_size_check, mmap, unsealed columns updated across the overflow
// threshold). Verified with every key, without segments, with them, reversed and each twice.
import { describe, it } from 'vitest'
import { Rng } from '../reliability/chainkit'
import { expectNoFinding, segmentRuns } from './no-finding'
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
    it(`#${n} seed ${seed} ${c.journal} p${c.pageSize}${c.incremental ? ' incremental' : c.full ? ' full' : ''}: ${c.steps.join(', ')}${c.crash ? ', crash' : ''}`, async () => {
      const g = generateSix(c, seed)
      try {
        await expectNoFinding(g, await segmentRuns(g.segments))
      } finally {
        g.cleanup()
      }
    }, 60_000)
  }
})
