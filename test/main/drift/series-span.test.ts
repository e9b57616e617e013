// The drift chart's span must be drawn from sealed times. Each generated chain is written twice:
// honest (the timestamp_ns column agrees with each body's sealed end_time_ns) and with the column
// rewritten on a few rows to a time years away, before or after (the insider's column, outside the
// MAC: reference §3.2, §11.3). On the old code the span was the column's extremes: one row moved a
// century squeezed every sealed time into one bucket (or left rows outside the span, uncharted). Now
// the two series are equal in every field — span, bucket width, each bucket's figures, anomalies —
// and the span is exactly the earliest and latest sealed end time (read by SQLite on a copy).
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DriftSeries } from '../../../src/shared/drift-types'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { SECRETS, withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { driftSeriesRunner } from './drift-kit'

const scratch = scratchDir('drift-span')
afterAll(() => scratch.cleanup())
const KEY = Buffer.from(SECRETS['primary']!, 'hex')
const T0 = 1_764_000_000_000_000_000n

const runSeries = driftSeriesRunner()

function rowsOf(rnd: () => number): RowSpec[] {
  const n = 40 + Math.floor(rnd() * 60)
  const step = BigInt(1 + Math.floor(rnd() * 3600)) * 1_000_000_000n
  return Array.from({ length: n }, (_, i) => {
    const v = rnd() < 0.08 && i > 12 ? 50_000 + Math.floor(rnd() * 1000) : 100 + Math.floor(rnd() * 60)
    const attributes = {
      'gen_ai.provider.name': rnd() < 0.7 ? 'p' : 'q',
      'gen_ai.request.model': 'm',
      'gen_ai.usage.input_tokens': v,
    }
    return { ...spanRow({ timestamp_ns: T0 + BigInt(i) * step, attributes }), seq: BigInt(i + 1) }
  })
}

describe('drift series: the chart span is the sealed times', () => {
  it.each([11, 12, 13, 14, 15, 16])('a rewritten column moves nothing drawn (seed %i)', async (seed) => {
    const rnd = mulberry32(seed)
    const honest = rowsOf(rnd)
    const far = [-1n, 1n].map((s) => s * BigInt(1 + Math.floor(rnd() * 100)) * 31_557_600n * 10n ** 9n)
    const moved = honest.map((r, i) =>
      i === 0 || rnd() < 0.1 ? { ...r, timestamp_ns: (r.timestamp_ns as bigint) + far[i % 2]! } : r,
    )
    const a = join(scratch.dir, `honest-${seed}.db`)
    const b = join(scratch.dir, `moved-${seed}.db`)
    writeChain(a, KEY, honest)
    writeChain(b, KEY, moved)
    const req = { buckets: 2 + Math.floor(rnd() * 30), window: 10, dimensions: ['input_tokens' as const] }
    const sa: DriftSeries = await runSeries(a, req)
    const sb: DriftSeries = await runSeries(b, req)
    const ends = withSqliteCopy(b, (db) =>
      (db.prepare('SELECT canonical_body FROM chain').all() as { canonical_body: Buffer }[]).map((r) =>
        BigInt((JSON.parse(r.canonical_body.toString('utf8')) as { end_time_ns: string }).end_time_ns),
      ),
    )
    const min = ends.reduce((x, y) => (y < x ? y : x))
    const max = ends.reduce((x, y) => (y > x ? y : x))
    expect([sb.from_ns, sb.to_ns]).toEqual([min.toString(), max.toString()])
    expect(sb).toEqual(sa)
    // Every value is drawn: the buckets hold all the points.
    for (const g of sb.groups)
      for (const d of g.dimensions) expect(d.buckets.reduce((n, k) => n + k.count, 0)).toBe(d.points)
    expect(sb.time_note).toBeUndefined()
  })
})
