// The recovery differential (issue 33): what recovery reads as the live database — every page of its
// current view, the freelist it carves whole, the live rows it compares recovered rows with — is
// SQLite's view of a copy (../testing/recovery-differential.ts), on every shared fixture, on the
// generated shapes of the reader's differential, and on seeded chains after honest churn (every page
// size 512–65536, WAL taken live or closed, rollback with hot journals, overflow, freelists, DELETE
// and UPDATE without VACUUM). Live rows are never reported recovered. Then the churned folders are
// mutated (hostile pages, ../testing/mutations.ts): the search gives an answer or one line, and
// still reports no row SQLite reads live as recovered.
import { cpSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSecrets, type KeyMaterial } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { churn, churnCase } from '../testing/churn-chains'
import { makeBases } from '../testing/differential'
import { KEY_HEX } from '../testing/exact-chains'
import { FIXTURES, SECRETS, secretInputs } from '../testing/fixtures'
import { basePages, MUTATIONS } from '../testing/mutations'
import { compareLive, searchFailures, sqliteView } from '../testing/recovery-differential'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-live-diff-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const CASES = Number(process.env['BIJOTEL_LIVE_DIFF_CASES'] ?? 24)
const SEED = Number(process.env['BIJOTEL_LIVE_DIFF_SEED'] ?? 33)

const hexKeys = (hex: string): KeyMaterial[] => parseSecrets([{ encoding: 'hex', value: hex }])

describe("recovery's live view is SQLite's", () => {
  it('every shared fixture SQLite reads', async () => {
    const keys = parseSecrets(secretInputs(Object.keys(SECRETS)))
    let compared = 0
    for (const f of readdirSync(FIXTURES)
      .filter((x) => x.endsWith('.db'))
      .sort()) {
      const path = join(FIXTURES, f)
      const view = sqliteView(path, root)
      if (typeof view === 'string') {
        // Only the fixtures that are no chain at all.
        expect(f, view).toMatch(/^bad-/)
        continue
      }
      const diff = await compareLive(path, view, keys, root)
      expect({ f, failures: diff.failures }).toEqual({ f, failures: [] })
      compared++
    }
    expect(compared).toBeGreaterThan(20)
  }, 240_000)

  it("the reader differential's generated shapes (page sizes, reserved bytes, WAL, hot journal, freelist)", async () => {
    const keys = hexKeys(KEY_HEX)
    const bases = makeBases(join(root, 'shapes'))
    for (const b of bases) {
      // A UTF-16 database is not searched (recovery refuses it in one line: live-carve.test.ts).
      if (/utf16/.test(b.name)) continue
      const path = join(b.dir, 'chain.db')
      const view = sqliteView(path, root)
      if (typeof view === 'string') throw new Error(`${b.name}: ${view}`)
      const diff = await compareLive(path, view, keys, root)
      expect({ b: b.name, failures: diff.failures }).toEqual({ b: b.name, failures: [] })
      if (b.name === 'hot-journal') expect(diff.direct).toBe(false)
    }
  }, 240_000)

  it(`seeded chains after honest churn (${CASES} cases from seed ${SEED})`, async () => {
    const seen = { wal: 0, live: 0, hot: 0, overflow: 0, free: 0, sizes: new Set<number>() }
    // Cases the direct reader declined (a hot journal): recovery's view then is the rolled-back one.
    let declined = 0
    for (let k = 0; k < CASES; k++) {
      const c = churnCase(SEED * 1000 + k)
      const made = churn(c)
      try {
        const label = `seed ${c.seed}: p${c.pageSize} ${c.journal} ${c.take} pad ${c.pad} [${c.ops.join(', ')}]`
        const view = sqliteView(made.db, root)
        if (typeof view === 'string') throw new Error(`${label}: ${view}`)
        const diff = await compareLive(made.db, view, hexKeys(made.key.toString('hex')), root)
        expect({ label, failures: diff.failures }).toEqual({ label, failures: [] })
        // The SQLite view holds the writer's committed rows: the generator's ground truth.
        expect(
          view.rows.map((r) => r.seq),
          label,
        ).toEqual([...made.live.keys()].sort((a, b) => (a < b ? -1 : 1)))
        seen.sizes.add(c.pageSize)
        if (c.journal === 'wal') seen.wal++
        if (c.take === 'live') seen.live++
        if (c.take === 'hot') seen.hot++
        if (!diff.direct) declined++
        if (c.pad > c.pageSize / 2) seen.overflow++
        if (view.freelistCount > 0) seen.free++
      } finally {
        made.cleanup()
      }
    }
    // The run covered ground: both modes, live WALs, hot journals, overflow, freelists.
    if (CASES >= 24) {
      expect(seen.sizes.size).toBeGreaterThanOrEqual(5)
      for (const n of [seen.wal, seen.live, seen.hot, seen.overflow, seen.free, declined])
        expect(n).toBeGreaterThan(0)
    }
  }, 300_000)

  it('hostile pages in churned folders: an answer or one line, and never a live row recovered', async () => {
    let mutated = 0
    for (let k = 0; k < Math.max(8, CASES / 2); k++) {
      const c = churnCase(SEED * 1000 + 500 + k)
      const made = churn(c)
      try {
        const rng = new Rng(c.seed)
        const dir = join(root, `mut-${k}`)
        const probe = join(root, `probe-${k}`)
        cpSync(join(made.db, '..'), probe, { recursive: true })
        const pages = basePages(join(probe, 'chain.db'))
        rmSync(probe, { recursive: true, force: true })
        for (let m = 0; m < 3; m++) {
          rmSync(dir, { recursive: true, force: true })
          cpSync(join(made.db, '..'), dir, { recursive: true })
          const mutation = rng.pick(MUTATIONS.filter((x) => !x.noOracle))
          const what = mutation.apply(dir, rng, pages)
          if (what === null) continue
          mutated++
          const path = join(dir, 'chain.db')
          const label = `seed ${c.seed} p${c.pageSize} ${c.journal} ${c.take}: ${mutation.name} (${what})`
          const view = sqliteView(path, root)
          // Where SQLite cannot read the mutant there are no live rows to hold the search to; it must
          // still answer or fail in one line.
          const failures = await searchFailures(
            path,
            typeof view === 'string' ? [] : view.rows,
            hexKeys(made.key.toString('hex')),
          )
          expect({ label, failures }).toEqual({ label, failures: [] })
        }
        rmSync(dir, { recursive: true, force: true })
      } finally {
        made.cleanup()
      }
    }
    expect(mutated).toBeGreaterThan(0)
  }, 300_000)
})
