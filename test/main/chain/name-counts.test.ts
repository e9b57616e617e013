// The overview's providers and models are bounded (round 10, issue 35): a chain names as many
// models as it has rows if its writer wants, and the overview sent every one — 10^5 names in each
// overview answer (and each poll of a staged open), all drawn by the evidence panel's "more". Now
// it lists the most frequent OVERVIEW_NAMES and says how many names and rows it leaves out, and
// `listNames` pages through all of them (or those holding a text). Generated chains with drawn
// numbers of distinct names (under, at and past the bound) and drawn, skewed row counts, odd
// spellings (case, non-ASCII, ties); SQLite's reading of the same rows is the oracle for every name
// and count: the overview's list is SQLite's top of the ranking, what is left out adds up to the
// rest, and the pages (of drawn sizes, for drawn queries) hold exactly SQLite's names, none twice.
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ChainOverview, NameCount, NamePage } from '../../../src/shared/chain-types'
import { OVERVIEW_NAMES } from '../../../src/shared/chain-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('name-counts')
afterAll(() => scratch.cleanup())
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }

const SPELLINGS = ['m', 'M', 'Modèle-', 'gpt-4o-', 'ΜΟΝΤΈΛΟ-', 'x']

function chainOf(seed: number): string {
  const rnd = mulberry32(seed)
  const spread = [20, OVERVIEW_NAMES, OVERVIEW_NAMES + 1, 150, 400][seed % 5]!
  const models = Array.from({ length: spread }, (_, i) => `${SPELLINGS[i % SPELLINGS.length]}${i % 37}-${i}`)
  const providers = Array.from({ length: Math.max(3, spread >> 1) }, (_, i) => `prov-${i}`)
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  const n = spread * 2 + Math.floor(rnd() * 300)
  for (let i = 0; i < n; i++) {
    // Every name at least once, then a skew (many ties among the rare names).
    const m = i < models.length ? i : Math.floor(rnd() ** 3 * models.length)
    const p = i < providers.length ? i : Math.floor(rnd() ** 2 * providers.length)
    rows.push(
      spanRow({
        timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
        name: 'x',
        attributes: { 'gen_ai.provider.name': providers[p]!, 'gen_ai.request.model': models[m]! },
      }),
    )
  }
  const path = join(scratch.dir, `names-${seed}.db`)
  writeChain(path, Buffer.alloc(32, 5), rows)
  return path
}

/** SQLite's counts of one attribute, ranked as the overview ranks (count, then name). */
function sqliteRanking(path: string, attr: string): NameCount[] {
  return withSqliteCopy(
    path,
    (db) =>
      db
        .prepare(
          `SELECT json_extract(canonical_body, '$.attributes."${attr}"') AS name, count(*) AS count FROM chain GROUP BY 1`,
        )
        .all() as NameCount[],
  ).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
}

describe('the overview lists the most frequent names; listNames pages through all', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8])
    it(`seed ${seed}`, async () => {
      const path = chainOf(seed)
      session = new AuditSession()
      const h = createHandlers(session)
      const o = (await h.openChain({ path }, ctx)) as ChainOverview
      const rnd = mulberry32(seed * 31)
      for (const [field, attr] of [
        ['model', 'gen_ai.request.model'],
        ['provider', 'gen_ai.provider.name'],
      ] as const) {
        const want = sqliteRanking(path, attr)
        const listed = field === 'model' ? o.models : o.providers
        const left = field === 'model' ? o.models_left : o.providers_left
        expect(listed, field).toEqual(want.slice(0, OVERVIEW_NAMES))
        if (want.length <= OVERVIEW_NAMES) expect(left, field).toBeUndefined()
        else
          expect(left, field).toEqual({
            names: want.length - OVERVIEW_NAMES,
            rows: want.slice(OVERVIEW_NAMES).reduce((s, x) => s + x.count, 0),
          })
        // Pages of drawn sizes, for drawn queries: exactly SQLite's names holding the text, in order.
        for (const query of ['', 'm', 'È', 'μοντ', '-1', 'no such name']) {
          const match = want.filter((x) => x.name.toLowerCase().includes(query.toLowerCase()))
          const got: NameCount[] = []
          const limit = 1 + Math.floor(rnd() * 100)
          for (let offset = 0; ; offset += limit) {
            const page = (await h.listNames(
              { field, ...(query ? { query } : {}), offset, limit },
              ctx,
            )) as NamePage
            expect(page.matching, `${field} ${query}`).toBe(match.length)
            expect(page.names.length).toBeLessThanOrEqual(limit)
            got.push(...page.names)
            if (page.names.length < limit) break
          }
          expect(got, `${field} "${query}"`).toEqual(match)
        }
      }
    }, 60_000)

  it('refuses malformed requests in one line', async () => {
    session = new AuditSession()
    const h = createHandlers(session)
    await h.openChain({ path: chainOf(9) }, ctx)
    for (const req of [
      {},
      { field: 'span' },
      { field: 'model', limit: 0 },
      { field: 'model', limit: 101 },
      { field: 'model', offset: -1 },
      { field: 'model', query: 7 },
      { field: 'model', query: 'q'.repeat(64 * 1024 + 1) },
      [],
      'model',
    ])
      await expect(h.listNames(req as never, ctx), JSON.stringify(req).slice(0, 80)).rejects.toMatchObject({
        code: 'bad_argument',
      })
  })
})
