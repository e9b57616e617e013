// Honest histories never make a finding (issue 39): random sequences of appends, batches, failed
// batches whose pages spilled, archiving, VACUUM, incremental vacuum, checkpoints of every mode,
// reopening, page size changes and key rotations, in journal_mode=DELETE and WAL, some ending in a
// crash mid-commit (./honest-generator.ts). Verified with every key, with the archive segments and
// without them: no finding, and no proven recovered row called deleted or an earlier version.
import { describe, it } from 'vitest'
import { Rng } from '../reliability/chainkit'
import { expectNoFinding, segmentRuns } from './no-finding'
import { generateHonest, honestCase, type HonestCase } from './honest-generator'

const RANDOM = 24

/**
 * The shapes that once read `truncated`: free pages (an archive's) reused by a batch that spills and
 * then fails, or by a crash mid-commit, with the writer stopped there or going on.
 */
const SPILLED: HonestCase[] = [512, 1024, 4096].flatMap((pageSize) =>
  (['delete', 'wal'] as const).flatMap((journal) => [
    { journal, pageSize, steps: ['batch', 'batch', 'archive', 'failed-batch'], crash: false },
    { journal, pageSize, steps: ['batch', 'batch', 'archive', 'failed-batch', 'append'], crash: false },
    { journal, pageSize, steps: ['batch', 'batch', 'archive', 'append'], crash: true },
  ]),
)

/** A failed batch sealed again by the writer (a fork of two sealed rows after one head), on free pages. */
const RETRIED: HonestCase[] = Array.from({ length: 12 }, (_, n) => ({
  journal: 'delete' as const,
  pageSize: [1024, 4096, 2048][n % 3]!,
  steps: ['batch', 'batch', 'batch', 'append', 'archive', 'retry'],
  crash: false,
}))

const CASES: HonestCase[] = [
  ...SPILLED,
  ...RETRIED,
  ...Array.from({ length: RANDOM }, (_, n) =>
    honestCase(new Rng(0x40e5 + n), n % 2 === 0 ? 'delete' : 'wal', 4 + (n % 5)),
  ),
]

describe('honest histories make no finding', () => {
  for (const [n, c] of CASES.entries()) {
    const seed = 0x40e5 + n
    it(`#${n} ${c.journal} p${c.pageSize}: ${c.steps.join(', ')}${c.crash ? ', crash' : ''}`, async () => {
      const g = generateHonest(c, seed)
      try {
        await expectNoFinding(g, await segmentRuns(g.segments, false))
      } finally {
        g.cleanup()
      }
    })
  }
})
