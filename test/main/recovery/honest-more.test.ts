// More honest histories never make a finding (issue 39): ./honest-more.ts's steps beyond the writer's
// own. Verified with every key, without segments, with them, with them in reverse order and each twice.
import { describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { generateMore, moreCase, type MoreCase } from './honest-more'
import { expectValid } from './no-finding'

const RANDOM = Number(process.env.BIJOTEL_MORE_CASES ?? 24)
const BASE = Number(process.env.BIJOTEL_MORE_SEED ?? 0x5a11)

/**
 * A batch rolled back in rollback-journal mode leaves its rows on the file's free pages; in WAL mode
 * again, the writer's next rows (sealed after the same head: a fork) reuse those pages through WAL
 * frames, so the file's images are superseded pages that were free in the file's own view. They read
 * `rewritten` before the fix.
 */
const FORKS: MoreCase[] = [512, 1024, 4096].flatMap((pageSize) => [
  {
    journal: 'wal',
    pageSize,
    steps: ['batch', 'batch', 'archive', 'append', 'to-delete', 'failed-batch', 'to-wal', 'append'],
    crash: false,
  },
  {
    journal: 'wal',
    pageSize,
    steps: ['batch', 'archive', 'to-delete', 'failed-batch', 'to-wal', 'append', 'append'],
    crash: true,
  },
])

/**
 * A crash mid-transaction with journal_mode=MEMORY or OFF: no journal rolls the spilled pages back, and
 * pages past the end the file's header records hold sealed rows after the head (sqlite_sequence's page
 * may have spilled too). They read `truncated` before the fix.
 */
const NO_JOURNAL: MoreCase[] = [1024, 4096, 16384].flatMap((pageSize) =>
  (['to-memory', 'to-off'] as const).flatMap((mode) => [
    { journal: 'delete' as const, pageSize, steps: ['batch', 'batch', mode, 'big', 'append'], crash: true },
    {
      journal: 'delete' as const,
      pageSize,
      steps: ['batch', 'batch', 'archive', mode, 'append'],
      crash: true,
    },
  ]),
)

/**
 * WAL mode: a batch that spilled its frames and rolled back, the writer's next rows sealed after the
 * same head (a fork), then checkpoints that restart the WAL: the batch's frames stay behind in an
 * earlier generation, after its last commit (where wal.c wrote them with their salts).
 */
const WAL_FORKS: MoreCase[] = [1024, 2048, 4096].flatMap((pageSize) => [
  {
    journal: 'wal',
    pageSize,
    steps: ['batch', 'big', 'failed-batch', 'append', 'restart', 'append'],
    crash: false,
  },
  {
    journal: 'wal',
    pageSize,
    steps: ['batch', 'failed-batch', 'append', 'restart', 'append', 'restart', 'append'],
    crash: true,
  },
])

/**
 * A random case the generator found (seed 9153): the WAL fork above, the batch's frames two
 * generations back, no commit frame after them. It read `rewritten 38-39` before the fix.
 */
const SEEDED: { c: MoreCase; seed: number }[] = [
  {
    c: {
      journal: 'wal',
      pageSize: 2048,
      steps: [
        'batch',
        'append',
        'big',
        'big',
        'failed-batch',
        'checkpoint',
        'big',
        'secure-delete',
        'archive',
        'checkpoint',
        'append',
      ],
      crash: true,
    },
    seed: 9153,
  },
  // Seed 50243: a WAL batch that spilled its frames and failed, then a restart: its rows, past the head
  // at seqs sqlite_sequence never reached, lie in an earlier generation's frames that chain to no
  // commit frame. It read `truncated 35-53` before the fix.
  {
    c: {
      journal: 'wal',
      pageSize: 16384,
      steps: [
        'batch',
        'append',
        'checkpoint',
        'big',
        'archive',
        'failed-batch',
        'rotate',
        'rotate',
        'restart',
        'reindex',
        'secure-delete',
        'append',
      ],
      crash: true,
    },
    seed: 50243,
  },
]

const CASES: { c: MoreCase; seed: number }[] = [
  ...[...FORKS, ...WAL_FORKS, ...NO_JOURNAL].map((c, n) => ({ c, seed: 0x5a11 + n })),
  ...SEEDED,
  ...Array.from({ length: RANDOM }, (_, n) => ({
    c: moreCase(new Rng(BASE + n), n % 2 === 0 ? 'delete' : 'wal', 4 + (n % 7)),
    seed: BASE + n,
  })),
]

describe('more honest histories make no finding', () => {
  for (const [n, { c, seed }] of CASES.entries()) {
    it(`#${n} ${c.journal} p${c.pageSize}: ${c.steps.join(', ')}${c.crash ? ', crash' : ''}`, async () => {
      const g = generateMore(c, seed)
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
          const run = verifyFile(g.db, keys, { recover: true, workers: 1, ...(segments ? { segments } : {}) })
          // A crash without a journal (MEMORY, OFF) may leave the file corrupt, as SQLite says: a refusal.
          const noJournal =
            g.log.includes('crash') && g.log.some((s) => /MEMORY|OFF|to-memory|to-off/.test(s))
          const out = await run.catch((e: unknown) => e)
          if (noJournal && out instanceof AuditError && out.code === 'corrupt') continue
          if (out instanceof Error || typeof out !== 'object' || out === null) throw out
          const { verdict } = out as Awaited<typeof run>
          const what = `${g.log.join(', ')}${segments ? ' (with segments)' : ''}`
          expectValid(verdict, what)
          // A notice that withholds rows names every way they could have come, never one as fact.
          for (const n of verdict.notices ?? []) {
            if (/so no finding$/.test(n)) expect(n, what).toMatch(/nothing proves/)
            if (n.includes('no commit wrote')) expect(n, what).toMatch(/edited by hand/)
          }
          for (const r of verdict.recovered ?? [])
            if (r.key_index !== null)
              expect(['deleted', 'superseded'], `${what}: seq ${r.seq}`).not.toContain(r.status)
        }
      } finally {
        g.cleanup()
      }
    })
  }
})
