// seqGaps in pages (issue 35): a chain with more gaps than one answer holds (100,000) has every gap
// reachable — the pages, asked from the last gap's index + 1, add up to exactly the gaps SQLite's
// own reading of the file shows, none twice, none left out, whatever the page size and wherever a
// page boundary falls. Generated chains of several gap classes (every other seq, runs, a mix), small
// ones with small pages for many cases, and one real chain past 100,000 gaps through the handler.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SeqGap } from '../../../src/shared/chain-types'
import { perTest } from '../testing/per-test'
import { createHandlers } from '../../../src/main/handlers/table'
import { MAX_SEQ_GAPS, seqGaps } from '../../../src/main/chain/seq-facts'
import { withSqliteCopy } from '../testing/fixtures'
import { GAP_CLASSES, gapsOf, gappySeqs, writeGappyChain } from '../testing/gappy-chain'
import { mulberry32 } from '../testing/prng'

const ctx = { transport: 'http', trusted: true } as const
const per = perTest()

function chainOf(seqs: number[]): string {
  const dir = per.scratch('bijotel-gap-pages-')
  const p = join(dir, 'chain.db')
  writeGappyChain(p, seqs)
  return p
}

/** The oracle: the gaps of the seqs as SQLite reads them from the file. */
function sqliteGaps(p: string): SeqGap[] {
  const seqs = withSqliteCopy(p, (db) =>
    (db.prepare('SELECT seq FROM chain ORDER BY seq').raw().all() as [number][]).map((r) => r[0]),
  )
  return gapsOf(seqs)
}

describe('seqGaps pages add up to every gap', () => {
  for (const cls of GAP_CLASSES)
    it(`${cls}: pages of drawn sizes from drawn chains`, async () => {
      const rnd = mulberry32(cls.length * 104729)
      for (let k = 0; k < 3; k++) {
        const p = chainOf(gappySeqs(cls, 200 + Math.floor(rnd() * 800), Math.floor(rnd() * 1e9)))
        const want = sqliteGaps(p)
        const session = per.session()
        await session.open(p)
        const idx = (await session.entrySource()).index
        for (const size of [1, 2, 1 + Math.floor(rnd() * 50), want.length, want.length + 1]) {
          const got: SeqGap[] = []
          let from = 0
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThanOrEqual(want.length + 1)
            const page = seqGaps(idx, from, Math.max(1, size))
            got.push(...page.gaps)
            if (!page.truncated) break
            from = page.gaps[page.gaps.length - 1]!.index + 1
          }
          expect(got).toEqual(want)
        }
        // Asking from inside the listing starts at the first gap at or past that position.
        const at = Math.floor(rnd() * idx.rows)
        expect(seqGaps(idx, at).gaps).toEqual(want.filter((g) => g.index >= at))
      }
    })

  it('past 100,000 gaps: the handler lists them all, page after page, as SQLite reads them', async () => {
    const seqs = gappySeqs('mixed', 170_000, 35)
    const p = chainOf(seqs)
    const want = sqliteGaps(p)
    expect(want.length).toBeGreaterThan(MAX_SEQ_GAPS)
    const session = per.session()
    const h = createHandlers(session)
    await session.open(p)
    const first = await h.seqGaps(undefined, ctx)
    expect(first.truncated).toBe(true)
    expect(first.gaps).toEqual(want.slice(0, MAX_SEQ_GAPS))
    const next = await h.seqGaps({ from_index: first.gaps[first.gaps.length - 1]!.index + 1 }, ctx)
    expect(next).toEqual({ gaps: want.slice(MAX_SEQ_GAPS), truncated: false })
    // The last gap's before_seq is where the listing holds it.
    const last = want[want.length - 1]!
    expect((await h.locateEntry({ seq: last.before_seq }, ctx)).index).toBe(last.index)
  })

  it('refuses a from_index that is not a position, in one line', async () => {
    const session = per.session()
    const h = createHandlers(session)
    await session.open(chainOf(gappySeqs('runs', 50, 1)))
    for (const bad of [-1, 1.5, '3', 2 ** 60])
      await expect(h.seqGaps({ from_index: bad as never }, ctx)).rejects.toThrow(
        /^from_index must be an integer from 0 to/,
      )
    // Past the end: nothing, and nothing more.
    expect(await h.seqGaps({ from_index: 10_000 }, ctx)).toEqual({ gaps: [], truncated: false })
  })
})
