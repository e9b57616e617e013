// seqGaps and seqTimes (issue 35 gap rows, issue 37 replay marks) against SQLite's own reading of
// the same file: generated chains with seqs deleted at random (runs in the middle, at the head, at
// the tail, every other row), each compared with `SELECT seq, timestamp_ns FROM chain ORDER BY seq`.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import type { SeqGap } from '../../../src/shared/chain-types'
import { perTest } from '../testing/per-test'
import { createHandlers } from '../../../src/main/handlers/table'
import { seqGaps } from '../../../src/main/chain/seq-facts'
import { dbPath, withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const ctx = { transport: 'http', trusted: true } as const
const per = perTest()

/** A copy of clean.db with the given seqs deleted (a test file: the fixture is never written). */
function withDeleted(seqs: number[]): string {
  const dir = per.scratch('bijotel-gaps-')
  const p = join(dir, 'chain.db')
  copyFileSync(dbPath('clean'), p)
  const db = new Database(p)
  const del = db.prepare('DELETE FROM chain WHERE seq = ?')
  db.transaction(() => seqs.forEach((s) => del.run(s)))()
  db.close()
  return p
}

/** The oracle: gaps and timestamps as SQLite reads them. */
function oracle(p: string): { gaps: SeqGap[]; times: Map<number, string | null> } {
  return withSqliteCopy(p, (db) => {
    const rows = db.prepare('SELECT seq, timestamp_ns FROM chain ORDER BY seq').safeIntegers(true).all() as {
      seq: bigint
      timestamp_ns: unknown
    }[]
    const gaps: SeqGap[] = []
    for (let i = 1; i < rows.length; i++) {
      const a = Number(rows[i - 1]!.seq)
      const b = Number(rows[i]!.seq)
      if (b - a > 1) gaps.push({ after_seq: a, before_seq: b, index: i })
    }
    const times = new Map(
      rows.map((r) => [Number(r.seq), typeof r.timestamp_ns === 'bigint' ? r.timestamp_ns.toString() : null]),
    )
    return { gaps, times }
  })
}

/** Deletions of one class, drawn from a seeded generator. */
const CLASSES: Record<string, (rnd: () => number) => number[]> = {
  'one seq in the middle': (rnd) => [2 + Math.floor(rnd() * 237)],
  'a run in the middle': (rnd) => {
    const s = 2 + Math.floor(rnd() * 200)
    return Array.from({ length: 1 + Math.floor(rnd() * 30) }, (_, k) => s + k)
  },
  'the head': (rnd) => Array.from({ length: 1 + Math.floor(rnd() * 20) }, (_, k) => 1 + k),
  'the tail': (rnd) => Array.from({ length: 1 + Math.floor(rnd() * 20) }, (_, k) => 240 - k),
  'scattered seqs': (rnd) => Array.from({ length: 20 }, () => 1 + Math.floor(rnd() * 240)),
  'every other seq': (rnd) => {
    const from = 1 + Math.floor(rnd() * 100)
    return Array.from({ length: 40 }, (_, k) => from + 2 * k)
  },
}

describe('seqGaps and seqTimes read what SQLite reads', () => {
  for (const [name, draw] of Object.entries(CLASSES))
    it(`${name}: every gap between live rows, none elsewhere`, async () => {
      const rnd = mulberry32(name.length * 7919)
      for (let k = 0; k < 3; k++) {
        const deleted = draw(rnd)
        const p = withDeleted(deleted)
        const want = oracle(p)
        const session = per.session()
        const h = createHandlers(session)
        await session.open(p)
        const got = await h.seqGaps(undefined, ctx)
        expect(got).toEqual({ gaps: want.gaps, truncated: false })
        // Each gap's index is where the listing holds its `before_seq`.
        for (const g of got.gaps.slice(0, 5))
          expect((await h.locateEntry({ seq: g.before_seq }, ctx)).index).toBe(g.index)
        // Times of live seqs as SQLite stores them; deleted seqs are left out, never invented.
        const asked = [...new Set([...deleted, 1, 120, 240, 7])]
        const times = await h.seqTimes({ seqs: asked }, ctx)
        expect(times).toEqual(
          asked.filter((s) => want.times.has(s)).map((s) => ({ seq: s, timestamp_ns: want.times.get(s) })),
        )
      }
    })

  it('an untouched chain has no gap', async () => {
    const session = per.session()
    await session.open(dbPath('clean'))
    expect(await createHandlers(session).seqGaps(undefined, ctx)).toEqual({ gaps: [], truncated: false })
  })

  it('says when it lists only the first gaps', async () => {
    const session = per.session()
    const p = withDeleted(Array.from({ length: 100 }, (_, k) => 2 + 2 * k))
    await session.open(p)
    const idx = (await session.entrySource()).index
    const all = seqGaps(idx)
    expect(all.gaps).toHaveLength(100)
    expect(seqGaps(idx, 0, 10)).toEqual({ gaps: all.gaps.slice(0, 10), truncated: true })
    expect(seqGaps(idx, 0, 100)).toEqual({ gaps: all.gaps, truncated: false })
    // The next page starts past the last gap listed.
    expect(seqGaps(idx, all.gaps[9]!.index + 1, 10)).toEqual({
      gaps: all.gaps.slice(10, 20),
      truncated: true,
    })
  })

  it('refuses what is not a list of seqs, in one line naming the element', async () => {
    const session = per.session()
    const h = createHandlers(session)
    await session.open(dbPath('clean'))
    for (const bad of [{}, { seqs: 5 }, { seqs: 'x' }, { seqs: new Array(10_001).fill(1) }])
      await expect(h.seqTimes(bad as never, ctx)).rejects.toThrow(/^seqs must be an array of at most 10000/)
    await expect(h.seqTimes({ seqs: [1, 1.5] }, ctx)).rejects.toThrow(/^seqs\[1\] must be an integer/)
    await expect(h.seqTimes({ seqs: [1, '2'] as never }, ctx)).rejects.toThrow(
      /^seqs\[1\] must be an integer/,
    )
    expect(await h.seqTimes({ seqs: [] }, ctx)).toEqual([])
  })
})

/** The oracle of a row's provider and model: SQLite's json_extract on the stored body (as body.ts reads). */
function providersAndModels(p: string): Map<number, { provider: string; model: string | null }> {
  return withSqliteCopy(p, (db) => {
    const rows = db
      .prepare(
        `SELECT seq,
                coalesce(nullif(json_extract(canonical_body, '$.attributes."gen_ai.provider.name"'), ''),
                         nullif(json_extract(canonical_body, '$.attributes."gen_ai.system"'), ''), 'unknown') AS provider,
                coalesce(nullif(json_extract(canonical_body, '$.attributes."gen_ai.response.model"'), ''),
                         nullif(json_extract(canonical_body, '$.attributes."gen_ai.request.model"'), '')) AS model
         FROM chain`,
      )
      .all() as { seq: number; provider: string; model: string | null }[]
    return new Map(rows.map((r) => [r.seq, { provider: r.provider, model: r.model }]))
  })
}

describe('seqTimes with the timeline filters (the replay marks follow the timeline, issue 35)', () => {
  it('a provider or model filter keeps exactly the seqs whose row has it, as SQLite reads the body', async () => {
    const p = dbPath('clean')
    const want = providersAndModels(p)
    const session = per.session()
    const h = createHandlers(session)
    await session.open(p)
    const overview = session.view().overview
    const rnd = mulberry32(3535)
    const filters: { provider?: string; model?: string }[] = [
      ...overview.providers.map((x) => ({ provider: x.name })),
      ...overview.models.map((x) => ({ model: x.name })),
      { provider: 'no-such-provider' },
    ]
    // Pairs as the filter bar makes them (a provider and one of its models, or another's: none).
    for (let k = 0; k < 6; k++) {
      const pr = overview.providers[Math.floor(rnd() * overview.providers.length)]!.name
      const mo = overview.models[Math.floor(rnd() * overview.models.length)]!.name
      filters.push({ provider: pr, model: mo })
    }
    for (const f of filters) {
      // Seqs asked: live ones drawn at random, and absent ones (never placed, whatever the filter).
      const asked = Array.from({ length: 60 }, () => 1 + Math.floor(rnd() * 260))
      const got = await h.seqTimes({ seqs: asked, filter: f }, ctx)
      const expected = asked.filter((s) => {
        const r = want.get(s)
        return (
          r !== undefined &&
          (f.provider === undefined || r.provider === f.provider) &&
          (f.model === undefined || r.model === f.model)
        )
      })
      expect(
        got.map((t) => t.seq),
        JSON.stringify(f),
      ).toEqual(expected)
      // The same answer as the timeline's own count over each seq's instant.
      for (const t of got.slice(0, 3)) {
        const tl = await h.timeline(
          { buckets: 1, from_ns: t.timestamp_ns!, to_ns: t.timestamp_ns!, ...f },
          ctx,
        )
        expect(tl.buckets[0]!.count).toBeGreaterThan(0)
      }
    }
  })

  it('flagged only keeps the seqs the session flags; an unknown search is refused in one line', async () => {
    const p = withDeleted([40, 41])
    const session = per.session()
    const h = createHandlers(session)
    await session.open(p)
    // The integrity monitor's anomalies (a seq gap at 42) are what the session flags without a key.
    await h.runIntegrity({ window: 240 }, ctx)
    const flagged = session.flaggedSeqs()
    const asked = Array.from({ length: 240 }, (_, k) => k + 1)
    const got = await h.seqTimes({ seqs: asked, filter: { flagged_only: true } }, ctx)
    expect(got.map((t) => t.seq)).toEqual(asked.filter((s) => flagged.has(s) && s !== 40 && s !== 41))
    // Some rows flagged, not all: the filter is not vacuous.
    expect(got.length).toBeGreaterThan(0)
    expect(got.length).toBeLessThan(238)
    await expect(h.seqTimes({ seqs: [1], filter: { search_id: 'nope' } }, ctx)).rejects.toThrow(
      /^no search nope/,
    )
    await expect(h.seqTimes({ seqs: [1], filter: { provider: 5 as never } }, ctx)).rejects.toThrow(/provider/)
  })
})
