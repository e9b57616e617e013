// A chain names as many provider/model groups as it has rows: an insider's chain whose every row
// carries its own model made the drift series hold 6 × 4 × `buckets` numbers per group for the whole
// pass and answer 6 × `buckets` bucket records per group (10,000 one-row groups: 1.5 GB, and the panel
// drew 60,000 charts; 20,000 at 2,000 buckets: the answer past V8's longest string). The series now
// charts the MAX_CHARTED_GROUPS groups with the most rows and counts the rest (`omitted`): their rows
// and anomalies, judged as every group is. Generated chains of 1 to 150 groups, rows drawn per
// group, some with spikes; the oracle for each group is the series of that group alone (the view's
// provider and model filter), and SQLite's reading of the rows for the counts.
import { afterAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { DriftGroup, DriftSeries, DriftSeriesRequest } from '../../../src/shared/drift-types'
import { MAX_CHARTED_GROUPS } from '../../../src/main/drift/series'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { driftSeriesRunner } from './drift-kit'

const scratch = scratchDir('drift-series-groups')
afterAll(() => scratch.cleanup())

const runSeries = driftSeriesRunner()
const series = (path: string, req: DriftSeriesRequest = {}): Promise<DriftSeries> =>
  runSeries(path, { window: 5, ...req })

function chainOf(name: string, groups: number, seed: number): string {
  const rnd = mulberry32(seed)
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  const sizes = Array.from({ length: groups }, () => 1 + Math.floor(rnd() ** 3 * 30))
  const order: number[] = sizes.flatMap((n, g) => Array.from({ length: n }, () => g))
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  const seen = new Array<number>(groups).fill(0)
  order.forEach((g, i) => {
    const k = seen[g]!++
    rows.push(
      spanRow({
        timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
        name: 'chat',
        attributes: {
          'gen_ai.provider.name': `prov-${g % 7}`,
          'gen_ai.request.model': `model-${g}`,
          // Steady, then a spike now and then past the first window: anomalies in many groups.
          'gen_ai.usage.input_tokens': 100 + (k % 3) + (k > 6 && rnd() < 0.15 ? 5000 : 0),
        },
      }),
    )
  })
  const path = join(scratch.dir, `${name}.db`)
  writeChain(path, Buffer.alloc(32, 9), rows)
  return path
}

const key = (g: Pick<DriftGroup, 'provider' | 'model'>): string => `${g.provider}\u0000${g.model}`
const found = (s: DriftSeries): number => s.anomaly_count

describe('the drift series charts the groups with the most rows and counts every other one', () => {
  for (const [groups, seed] of [
    [1, 1],
    [MAX_CHARTED_GROUPS, 2],
    [MAX_CHARTED_GROUPS + 1, 3],
    [60, 4],
    [150, 5],
  ] as const)
    it(`${groups} groups (seed ${seed})`, async () => {
      const path = chainOf(`g${groups}-${seed}`, groups, seed)
      const rowsOf = withSqliteCopy(path, (db) => {
        const m = new Map<string, number>()
        for (const { p, mo, n } of db
          .prepare(
            `SELECT json_extract(canonical_body, '$.attributes."gen_ai.provider.name"') AS p,
                    json_extract(canonical_body, '$.attributes."gen_ai.request.model"') AS mo, count(*) AS n
             FROM chain GROUP BY p, mo`,
          )
          .all() as { p: string; mo: string; n: number }[])
          m.set(`${p}\u0000${mo}`, n)
        return m
      })
      const all = await series(path, { buckets: 50 })
      expect(all.groups.length).toBe(Math.min(groups, MAX_CHARTED_GROUPS))
      // The groups charted are those with the most rows: none left out has more than the least shown.
      const shown = new Set(all.groups.map(key))
      const least = Math.min(...all.groups.map((g) => g.rows))
      for (const [k, n] of rowsOf) if (!shown.has(k)) expect(n).toBeLessThanOrEqual(least)
      for (const g of all.groups) expect(g.rows).toBe(rowsOf.get(key(g)))
      const rest = [...rowsOf].filter(([k]) => !shown.has(k))
      if (rest.length === 0) expect(all.omitted).toBeUndefined()
      else
        expect(all.omitted).toMatchObject({
          groups: rest.length,
          rows: rest.reduce((a, [, n]) => a + n, 0),
        })
      // Every anomaly is counted: the sum of each group's series alone (the oracle).
      let sum = 0
      for (const k of rowsOf.keys()) {
        const [provider, model] = k.split('\u0000')
        const one = await series(path, { buckets: 50, provider, model })
        expect(one.groups.length).toBe(1)
        sum += found(one)
      }
      if (groups >= MAX_CHARTED_GROUPS) expect(sum).toBeGreaterThan(0)
      expect(all.anomaly_count).toBe(sum)
      if (all.omitted) {
        const charted = all.groups.reduce(
          (a, g) =>
            a + g.dimensions.reduce((b, d) => b + (d.anomalies_truncated ? NaN : d.anomalies.length), 0),
          0,
        )
        expect(all.omitted.anomalies).toBe(sum - charted)
      }
    })

  it('a chain whose 12,000 rows each name their own model: bounded answer, quickly', async () => {
    const rows: RowSpec[] = []
    const t0 = 1_764_000_000_000_000_000n
    for (let i = 0; i < 12_000; i++)
      rows.push(
        spanRow({
          timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
          name: 'x',
          attributes: {
            'gen_ai.provider.name': 'p',
            'gen_ai.request.model': `m${i}`,
            'gen_ai.usage.input_tokens': 7,
          },
        }),
      )
    const path = join(scratch.dir, 'own-models.db')
    writeChain(path, Buffer.alloc(32, 9), rows)
    const s = await series(path, { buckets: 2000 })
    expect(s.groups.length).toBe(MAX_CHARTED_GROUPS)
    expect(s.omitted).toEqual({
      groups: 12_000 - MAX_CHARTED_GROUPS,
      rows: 12_000 - MAX_CHARTED_GROUPS,
      anomalies: 0,
    })
    // The answer: at most MAX_CHARTED_GROUPS × 6 dimensions × 2,000 buckets.
    expect(JSON.stringify(s).length).toBeLessThan(MAX_CHARTED_GROUPS * 6 * 2000 * 120)
  }, 120_000)
})
