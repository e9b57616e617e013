// A chain names as many providers and models as it has rows. The index numbered names in Uint16
// columns and gave every name past the 65,535th the number of the last one kept: the rows of all
// later names were counted, filtered, exported and charted under the 65,536th name (the overview's
// "m65535: 41 rows" over 41 different models; a model filter selecting rows of other models; a view
// export writing another model into each row; another provider's rows in a provider's share). Chains
// past the old cap, with a generated number of extra names, the order of first appearance shuffled,
// and repeats; SQLite's reading of the same rows is the oracle for every count and row.
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ChainOverview, EntryPage, NameCount, NamePage } from '../../../src/shared/chain-types'
import type { ViewExport } from '../../../src/shared/tools-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('many-names')
afterAll(() => scratch.cleanup())
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }
const OLD_CAP = 65_535

function chainOf(seed: number): { path: string; extra: number } {
  const rnd = mulberry32(seed)
  const extra = 1 + Math.floor(rnd() * 60)
  const names = OLD_CAP + extra
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  for (let i = 0; i < names + 40; i++) {
    // Every name once, then repeats of names past the old cap (and one before it).
    const n = i < names ? i : OLD_CAP - 1 + Math.floor(rnd() * (extra + 1))
    rows.push(
      spanRow({
        timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
        name: 'x',
        attributes: { 'gen_ai.provider.name': `prov-${n}`, 'gen_ai.request.model': `model-${n}` },
      }),
    )
  }
  const path = join(scratch.dir, `names-${seed}.db`)
  writeChain(path, Buffer.alloc(32, 3), rows)
  return { path, extra }
}

describe('past 65,535 names, every provider and model keeps its own rows', () => {
  for (const seed of [11, 12])
    it(`seed ${seed}`, async () => {
      const { path, extra } = chainOf(seed)
      const truth = withSqliteCopy(path, (db) => {
        const by = (attr: string): Map<string, number[]> => {
          const m = new Map<string, number[]>()
          for (const { v, seq } of db
            .prepare(
              `SELECT json_extract(canonical_body, '$.attributes."${attr}"') AS v, seq FROM chain ORDER BY seq`,
            )
            .all() as { v: string; seq: number }[])
            m.set(v, [...(m.get(v) ?? []), seq])
          return m
        }
        return { models: by('gen_ai.request.model'), providers: by('gen_ai.provider.name') }
      })
      session = new AuditSession()
      const h = createHandlers(session)
      const o = (await h.openChain({ path }, ctx)) as ChainOverview
      const counts = (m: Map<string, number[]>) => Object.fromEntries([...m].map(([k, v]) => [k, v.length]))
      // Every name with its count, through listNames' pages (the overview lists the most frequent).
      const all = async (field: 'provider' | 'model'): Promise<NameCount[]> => {
        const out: NameCount[] = []
        for (let offset = 0; ; offset += 100) {
          const page = (await h.listNames({ field, offset }, ctx)) as NamePage
          out.push(...page.names)
          if (page.names.length < 100) return out
        }
      }
      expect(o.models_left?.names).toBe(truth.models.size - o.models.length)
      expect(Object.fromEntries((await all('model')).map((m) => [m.name, m.count]))).toEqual(
        counts(truth.models),
      )
      expect(Object.fromEntries((await all('provider')).map((m) => [m.name, m.count]))).toEqual(
        counts(truth.providers),
      )
      // The names around and past the old cap: a filter selects that name's rows, an export names each.
      for (let n = OLD_CAP - 2; n < OLD_CAP + extra; n++) {
        const model = `model-${n}`
        const page = (await h.listEntries({ offset: 0, limit: 100, filter: { model } }, ctx)) as EntryPage
        expect(
          page.rows.map((e) => e.seq),
          model,
        ).toEqual(truth.models.get(model))
        expect(page.rows.every((e) => e.model === model)).toBe(true)
        const provider = `prov-${n}`
        const ex = (await h.exportView({ format: 'jsonl', filter: { provider } }, ctx)) as ViewExport
        const lines = ex.content
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { seq: number; provider: string; model: string })
        expect(
          lines.map((l) => l.seq),
          provider,
        ).toEqual(truth.providers.get(provider))
        expect(lines.every((l) => l.provider === provider && l.model === `model-${n}`)).toBe(true)
      }
    }, 180_000)
})
