// One overview answer bounded in bytes, not only in count (round 11, issue 6): the overview lists
// the OVERVIEW_NAMES most frequent providers and models, and `listNames` pages of MAX_NAMES_PAGE —
// each name whole, and a writer's names may be megabytes (100 × 1 MiB in every overview answer and
// every poll of a staged open). Now each name longer than LIST_TEXT_UNITS is clipped there (never
// half a surrogate pair) and marked `clipped`; `listNames` with `whole: true` (one at a time) gives
// the whole name. Generated chains (long names, names sharing their first 256 units, one name that
// is exactly another's clipped start, a surrogate pair across the cut, skewed counts) against
// SQLite's reading of the same rows.
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  LIST_TEXT_UNITS,
  MAX_NAMES_PAGE,
  OVERVIEW_NAMES,
  type ChainOverview,
  type NameCount,
  type NamePage,
} from '../../../src/shared/chain-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { withSqliteCopy } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('name-bytes')
afterAll(() => scratch.cleanup())
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }
const FIELDS = { provider: 'gen_ai.provider.name', model: 'gen_ai.request.model' } as const
type Field = keyof typeof FIELDS

function nameOf(rnd: () => number, tag: string, i: number): string {
  const stem = tag.repeat(LIST_TEXT_UNITS).slice(0, LIST_TEXT_UNITS)
  switch (Math.floor(rnd() * 6)) {
    case 0:
      return `${tag}${i}`
    case 1:
      return `${stem}${i}` // clipped to `stem`, as its siblings are
    case 2:
      return i % 2 === 0 ? stem : `${stem}-${i}` // a name that is exactly another's clipped start
    case 3:
      return `${'s'.repeat(LIST_TEXT_UNITS - 1)}\u{1F600}${i}`
    case 4:
      return `${i}-${tag.repeat(1000 + Math.floor(rnd() * 20_000))}`
    default:
      return `${tag}-${'w'.repeat(LIST_TEXT_UNITS - 3 - String(i).length)}${i}`
  }
}

function chainOf(seed: number): string {
  const rnd = mulberry32(seed)
  const many = seed % 2 === 0 ? 150 : 40
  const providers = Array.from({ length: many }, (_, i) => nameOf(rnd, 'P', i))
  const models = Array.from({ length: many }, (_, i) => nameOf(rnd, 'M', i))
  const rows: RowSpec[] = []
  const n = many + 200
  for (let i = 0; i < n; i++) {
    const pick = (k: number): number => (i < many ? (i + k) % many : Math.floor(many * rnd() * rnd()))
    rows.push(
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: { [FIELDS.provider]: providers[pick(0)]!, [FIELDS.model]: models[pick(7)]! },
      }),
    )
  }
  const path = join(scratch.dir, `names-${seed}.db`)
  writeChain(path, Buffer.alloc(32, 9), rows)
  return path
}

const clip = (v: string): string => {
  if (v.length <= LIST_TEXT_UNITS) return v
  const h = v.charCodeAt(LIST_TEXT_UNITS - 1)
  return v.slice(0, h >= 0xd800 && h <= 0xdbff ? LIST_TEXT_UNITS - 1 : LIST_TEXT_UNITS)
}

/** What a listed name must be, given the whole name it stands for. */
function expectClipped(listed: NameCount, whole: NameCount): void {
  expect(listed.name).toBe(clip(whole.name))
  expect(listed.count).toBe(whole.count)
  expect(listed.clipped === true).toBe(whole.name.length > LIST_TEXT_UNITS)
  expect(listed.name.length).toBeLessThanOrEqual(LIST_TEXT_UNITS)
}

describe('overview and name pages send names clipped, each whole by itself', () => {
  for (let seed = 1; seed <= 12; seed++)
    it(`seed ${seed}`, async () => {
      const path = chainOf(seed)
      session = new AuditSession()
      const h = createHandlers(session)
      const o = (await h.openChain({ path }, ctx)) as ChainOverview
      // Bounded in bytes: 2 × OVERVIEW_NAMES names of ≤ LIST_TEXT_UNITS units (≤ 3 bytes each in
      // UTF-8 JSON, a pair 4 for 2 units), with counts.
      const names = Buffer.byteLength(JSON.stringify([o.providers, o.models]))
      expect(names).toBeLessThan(2 * OVERVIEW_NAMES * (LIST_TEXT_UNITS * 3 + 60))
      for (const field of ['provider', 'model'] as Field[]) {
        const truth = withSqliteCopy(
          path,
          (db) =>
            db
              .prepare(
                `SELECT json_extract(canonical_body, '$.attributes."${FIELDS[field]}"') AS name, count(*) AS count
               FROM chain GROUP BY name`,
              )
              .all() as NameCount[],
        )
        const counts = new Map(truth.map((t) => [t.name, t.count]))
        const listedInOverview = field === 'provider' ? o.providers : o.models
        const wholes: NameCount[] = []
        for (let i = 0; ; i++) {
          const page = (await h.listNames({ field, offset: i, limit: 1, whole: true }, ctx)) as NamePage
          if (page.names.length === 0) break
          wholes.push(page.names[0]!)
        }
        // Every name of the chain, whole, with SQLite's count.
        expect(new Map(wholes.map((w) => [w.name, w.count]))).toEqual(counts)
        expect(wholes.length).toBe(counts.size)
        listedInOverview.forEach((n, i) => expectClipped(n, wholes[i]!))
        for (let offset = 0; offset < wholes.length; offset += MAX_NAMES_PAGE) {
          const page = (await h.listNames({ field, offset }, ctx)) as NamePage
          page.names.forEach((n, i) => expectClipped(n, wholes[offset + i]!))
        }
        // A search: each match clipped; its whole name (same query and offset) holds the query.
        const q = field === 'provider' ? 'p1' : 'M-'
        const found = (await h.listNames({ field, query: q }, ctx)) as NamePage
        for (let i = 0; i < Math.min(found.names.length, 5); i++) {
          const w = (
            (await h.listNames({ field, query: q, offset: i, limit: 1, whole: true }, ctx)) as NamePage
          ).names[0]!
          expect(w.name.toLowerCase()).toContain(q.toLowerCase())
          expectClipped(found.names[i]!, w)
        }
        // Whole names come one at a time.
        await expect(h.listNames({ field, whole: true }, ctx)).rejects.toThrow(/one at a time/)
        await expect(h.listNames({ field, whole: true, limit: 2 }, ctx)).rejects.toThrow(/one at a time/)
      }
    })
})
