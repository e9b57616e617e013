// The app's drift series must rest every claim on what the file seals: timestamp_ns is outside the
// MAC (reference §3.2, §11.3), so an insider who rewrites it — to text, to NULL, years away, another
// row's — must change no anomaly, no count and no judged row. Each generated chain is written twice:
// honest (the column agrees with the body's sealed end_time_ns) and with the column rewritten on a
// random third of its rows; the two series must judge the same rows the same way, and each anomaly's
// time must be the body's sealed end time (read by SQLite on a copy), or be marked unsealed when the
// body seals none. Some rows are event bodies without an end time: their column is their only time.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DriftSeries } from '../../../src/shared/drift-types'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { SECRETS, withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { driftSeriesRunner } from './drift-kit'

const scratch = scratchDir('drift-times')
afterAll(() => scratch.cleanup())
const KEY = Buffer.from(SECRETS['primary']!, 'hex')
const T0 = 1_764_000_000_000_000_000n

const runSeries = driftSeriesRunner()
const series = (path: string): Promise<DriftSeries> =>
  runSeries(path, { buckets: 12, window: 10, dimensions: ['input_tokens'] })

/** An event body: attributes and a name, no span times. */
function eventRow(ts: bigint, attributes: Record<string, unknown>): RowSpec {
  const sorted = Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)))
  return { body: Buffer.from(JSON.stringify({ attributes: sorted, name: 'audit.event' })), timestamp_ns: ts }
}

/** Rows of one provider/model with spread values and planted outliers; some events. */
function rowsOf(seed: number): RowSpec[] {
  const rnd = mulberry32(seed)
  return Array.from({ length: 70 }, (_, i) => {
    const v = rnd() < 0.08 && i > 12 ? 50_000 + Math.floor(rnd() * 1000) : 100 + Math.floor(rnd() * 60)
    const attributes = { 'gen_ai.provider.name': 'p', 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': v }
    const ts = T0 + BigInt(i) * 1_000_000_000n
    const row = rnd() < 0.15 ? eventRow(ts, attributes) : spanRow({ timestamp_ns: ts, attributes })
    return { ...row, seq: BigInt(i + 1) }
  }) // prettier-ignore
}

/** The insider's column: text, NULL, far away, negative, another row's, a float. */
function rewrite(rows: RowSpec[], seed: number): RowSpec[] {
  const rnd = mulberry32(seed * 7919)
  const kinds = [
    () => 'x',
    () => null,
    () => T0 + 10n ** 17n,
    () => -5n,
    () => rows[Math.floor(rnd() * rows.length)]!.timestamp_ns,
    () => 1.5,
    () => '',
  ]
  return rows.map((r) =>
    rnd() < 0.33 ? { ...r, timestamp_ns: kinds[Math.floor(rnd() * kinds.length)]!() } : r,
  )
}

const judged = (s: DriftSeries): string[] =>
  s.groups.flatMap((g) =>
    g.dimensions.flatMap((d) => d.anomalies.map((a) => `${a.seq} ${a.dimension} ${a.value} ${a.z_score}`)),
  )

describe('drift series: the unsealed timestamp_ns decides no claim', () => {
  it.each([1, 2, 3, 4, 5, 6])(
    'honest and rewritten columns give the same judgement (seed %i)',
    async (seed) => {
      const honest = rowsOf(seed)
      const a = join(scratch.dir, `honest-${seed}.db`)
      const b = join(scratch.dir, `rewritten-${seed}.db`)
      writeChain(a, KEY, honest, { loose: true })
      writeChain(b, KEY, rewrite(honest, seed), { loose: true })
      const sa = await series(a)
      const sb = await series(b)
      expect(judged(sa).length).toBeGreaterThan(0)
      expect(judged(sb)).toEqual(judged(sa))
      expect(sb.anomaly_count).toBe(sa.anomaly_count)
      expect(sb.groups.map((g) => [g.rows, g.dimensions.map((d) => d.points)])).toEqual(
        sa.groups.map((g) => [g.rows, g.dimensions.map((d) => d.points)]),
      )
      // Each anomaly's time: the body's sealed end time, else the column, marked unsealed.
      const sealed = withSqliteCopy(b, (db) => {
        const m = new Map<number, string | null>()
        for (const r of db.prepare('SELECT seq, canonical_body FROM chain').all() as {
          seq: number
          canonical_body: Buffer
        }[]) {
          const end = (JSON.parse(r.canonical_body.toString('utf8')) as { end_time_ns?: string }).end_time_ns
          m.set(r.seq, end ?? null)
        }
        return m
      })
      let unsealedSeen = 0
      for (const g of sb.groups)
        for (const d of g.dimensions)
          for (const an of d.anomalies) {
            const end = sealed.get(an.seq)
            if (end === null) {
              unsealedSeen++
              if (an.timestamp_ns !== '') expect(an.time_unsealed, `seq ${an.seq}`).toBe(true)
            } else {
              expect(an.timestamp_ns, `seq ${an.seq}`).toBe(end)
              expect(an.time_unsealed).toBeUndefined()
            }
          }
      // Rows not charted or charted by the column are said to be.
      const charted = sb.groups[0]!.dimensions[0]!.buckets.reduce((n, k) => n + k.count, 0)
      const points = sb.groups[0]!.dimensions[0]!.points
      if (charted < points || unsealedSeen > 0)
        expect(sb.time_note).toMatch(/^Times are each row's sealed end_time_ns; /)
    },
  )
})
