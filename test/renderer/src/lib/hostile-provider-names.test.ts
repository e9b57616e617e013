// Provider names are the chain's text: any string, `__proto__`, `constructor`, `toString` and
// `hasOwnProperty` included. The timeline's per-bucket counts are a record keyed by those names:
// the engine set `by['__proto__'] = n` (which sets a prototype, not a member: that provider's
// entries vanished from every bucket), and the charts read `by_provider['constructor']` of a bucket
// without it (Object's constructor function: a NaN share). Generated over such names and bucket
// layouts, through the real engine on a chain written for the test and the chart rows built from
// what it answers (a copy, as a transport delivers it): every count is the chain's, every share a
// finite number, each bucket's shares 100 % or 0.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Timeline } from '../../../../src/shared/chain-types'
import { createHandlers } from '../../../../src/main/handlers/table'
import { providerKey, shareKey, timelineRows } from '../../../../src/renderer/src/lib/chart-data'
import { spanRow, writeChain } from '../../../main/reliability/chainkit'
import { KEY } from '../../../main/testing/exact-chains'
import { perTest } from '../../../main/testing/per-test'
import { mulberry32 } from '../../../main/testing/prng'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'a.b', 'x[0]', 'openai']

describe('provider names that are Object members', () => {
  for (const seed of [1, 2, 3])
    it(`seed ${seed}: counts and shares in every bucket are the chain's`, async () => {
      const rnd = mulberry32(seed)
      const t0 = 1_764_000_000_000_000_000n
      const names: string[] = []
      const rows = Array.from({ length: 120 }, (_, i) => {
        // Runs of one provider, so most buckets lack most names.
        const p = HOSTILE[Math.floor(i / 10 + rnd() * 2) % HOSTILE.length]!
        names.push(p)
        return spanRow({
          timestamp_ns: t0 + BigInt(i) * 60_000_000_000n,
          attributes: { 'gen_ai.provider.name': p, i },
        })
      })
      const path = join(per.scratch('bijotel-hostile-providers-'), 'chain.db')
      writeChain(path, KEY, rows)
      const h = createHandlers(per.session())
      await h.openChain({ path }, ctx)
      const buckets = 6 + Math.floor(rnd() * 12)
      const tl = structuredClone((await h.timeline({ buckets }, ctx)) as Timeline)
      const total = (p: string) =>
        tl.buckets.reduce((a, b) => a + (Object.hasOwn(b.by_provider, p) ? b.by_provider[p]! : 0), 0)
      for (const p of new Set(names)) expect(total(p), p).toBe(names.filter((n) => n === p).length)
      for (const row of timelineRows(tl)) {
        let sum = 0
        for (const p of tl.providers) {
          const share = row[shareKey(p)]
          const count = row[providerKey(p)]
          expect(typeof count, `${p} count`).toBe('number')
          expect(Number.isFinite(share as number), `${p} share ${String(share)}`).toBe(true)
          sum += share as number
        }
        if (row.count > 0) expect(sum).toBeCloseTo(100, 6)
        else expect(sum).toBe(0)
      }
    })
})
