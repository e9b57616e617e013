// The timeline's providers (round 11, issue 6): a chain may name a provider per row, each name
// megabytes long. `timeline` named every provider in `providers` and again in every bucket's
// by_provider — 10^5 names per answer, a long name once per bucket it has rows in — for a share chart
// that draws twelve bands. Now at most TIMELINE_PROVIDERS are named (the most rows, ties by name),
// each clipped to LIST_TEXT_UNITS with no two keys alike, the rest counted in `providers_left`, and
// every bucket's count still exact. Generated chains (how many providers, how many rows each, names
// long, sharing a long start, cut inside a surrogate pair) against SQLite's own reading of the rows.
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { LIST_TEXT_UNITS, TIMELINE_PROVIDERS, type Timeline } from '../../../src/shared/chain-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('timeline-providers')
afterAll(() => scratch.cleanup())
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }

/** A provider name of one generated kind (index `i` keeps names apart). */
function nameOf(rnd: () => number, i: number): string {
  const kind = Math.floor(rnd() * 5)
  if (kind === 0) return `p${i}`
  // Long names that share their first LIST_TEXT_UNITS units: clipped, they would be one band.
  if (kind === 1) return `${'L'.repeat(LIST_TEXT_UNITS)}${i}`
  // A surrogate pair across the cut.
  if (kind === 2) return `${'s'.repeat(LIST_TEXT_UNITS - 1)}\u{1F600}${i}`
  if (kind === 3) return `${'x'.repeat(LIST_TEXT_UNITS - 2 - String(i).length)}${i}`
  return `${String(i).padStart(8, '0')}${'y'.repeat(2000 + Math.floor(rnd() * 4000))}`
}

function chainOf(seed: number): string {
  const rnd = mulberry32(seed)
  const providers = 1 + Math.floor(rnd() * (seed % 3 === 0 ? 8 : 300))
  const names = Array.from({ length: providers }, (_, i) => nameOf(rnd, i))
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  const n = providers + Math.floor(rnd() * 600)
  for (let i = 0; i < n; i++) {
    // Every name once, then a skewed draw (a few names get many rows, ties happen).
    const p = i < providers ? i : Math.floor(providers * rnd() * rnd())
    rows.push(
      spanRow({
        timestamp_ns: t0 + BigInt(Math.floor(rnd() * 1e6)) * 1_000_000n,
        name: 'x',
        attributes: { 'gen_ai.provider.name': names[p]!, 'gen_ai.request.model': 'm' },
      }),
    )
  }
  const path = join(scratch.dir, `tl-${seed}.db`)
  writeChain(path, Buffer.alloc(32, 5), rows)
  return path
}

const clip = (v: string): string => {
  if (v.length <= LIST_TEXT_UNITS) return v
  const h = v.charCodeAt(LIST_TEXT_UNITS - 1)
  return v.slice(0, h >= 0xd800 && h <= 0xdbff ? LIST_TEXT_UNITS - 1 : LIST_TEXT_UNITS)
}

describe('the timeline names at most TIMELINE_PROVIDERS providers, clipped, with exact totals', () => {
  for (let seed = 1; seed <= 24; seed++)
    it(`seed ${seed}`, async () => {
      const path = chainOf(seed)
      session = new AuditSession()
      const h = createHandlers(session)
      await h.openChain({ path }, ctx)
      const buckets = 1 + Math.floor(mulberry32(seed * 7)() * 40)
      const tl = (await h.timeline({ buckets }, ctx)) as Timeline
      const truth = withSqliteCopy(path, (db) => {
        const q = db
          .prepare(
            `SELECT json_extract(canonical_body, '$.attributes."gen_ai.provider.name"') AS p, count(*) AS n
             FROM chain WHERE timestamp_ns BETWEEN ? AND ? GROUP BY p`,
          )
          .safeIntegers(false)
        const per = tl.buckets.map(
          (b) => q.all(BigInt(b.start_ns), BigInt(b.end_ns)) as { p: string; n: number }[],
        )
        const all = q.all(BigInt(tl.from_ns), BigInt(tl.to_ns)) as { p: string; n: number }[]
        return { per, all }
      })
      // Which providers the engine must name: the most rows first, ties by name; a clipped name
      // that is one already named is folded.
      const order = [...truth.all].sort((a, b) => b.n - a.n || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0))
      const kept = new Map<string, string>()
      for (const r of order)
        if (kept.size < TIMELINE_PROVIDERS && !kept.has(clip(r.p))) kept.set(clip(r.p), r.p)
      expect(tl.providers).toEqual([...kept.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
      expect(tl.providers.length).toBeLessThanOrEqual(TIMELINE_PROVIDERS)
      expect(tl.providers_clipped ?? []).toEqual(tl.providers.filter((k) => kept.get(k) !== k))
      const keptRows = order.filter((r) => kept.get(clip(r.p)) === r.p).reduce((a, r) => a + r.n, 0)
      const rows = order.reduce((a, r) => a + r.n, 0)
      if (order.length > kept.size)
        expect(tl.providers_left).toEqual({ names: order.length - kept.size, rows: rows - keptRows })
      else expect(tl.providers_left).toBeUndefined()
      tl.buckets.forEach((b, i) => {
        // Every row is in its bucket's count; each named provider's own rows only under its key.
        expect(b.count).toBe(truth.per[i]!.reduce((a, r) => a + r.n, 0))
        const want: Record<string, number> = {}
        for (const r of truth.per[i]!) if (kept.get(clip(r.p)) === r.p) want[clip(r.p)] = r.n
        expect({ ...b.by_provider }).toEqual(want)
      })
      // Bounded in bytes, whatever the names: twelve keys of ≤ LIST_TEXT_UNITS units per bucket.
      const bound = (tl.buckets.length + 2) * (TIMELINE_PROVIDERS * (LIST_TEXT_UNITS * 4 + 24) + 200)
      expect(Buffer.byteLength(JSON.stringify(tl))).toBeLessThan(bound)
    })
})
