// @vitest-environment jsdom
// A chain may name as many models (and providers) as it has rows, each as long as its writer likes.
// The filter bar drew one <option> per name, each with the whole name: 20,000 options here (10^5 in
// a crafted chain), redrawn with the bar. Now the list holds at most NAMES_LISTED names (the most
// frequent first), each shown to NAME_SHOWN code points, and a search reaches every other name: no
// name is lost. (Round 10: the overview itself lists only the most frequent OVERVIEW_NAMES; the
// search asks the engine's listNames, as the app does.) A chain written for the test (generated names, repeats, names of a megabyte) is
// opened by the real handler table; the bar is driven as the auditor would, and the filter chosen
// is sent back to the engine, whose rows are checked against SQLite.
import { join } from 'node:path'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ChainOverview, EntryPage, NameCount, NamePage } from '../../../../src/shared/chain-types'
import { LIST_TEXT_UNITS, OVERVIEW_NAMES } from '../../../../src/shared/chain-types'
import { FilterBar } from '../../../../src/renderer/src/components/FilterBar'
import { NAMES_LISTED, NAME_SHOWN } from '../../../../src/renderer/src/components/NameFilter'
import { EvidencePanel } from '../../../../src/renderer/src/components/EvidencePanel'
import {
  initialView,
  viewReducer,
  type ViewAction,
  type ViewState,
} from '../../../../src/renderer/src/lib/filter-state'
import { createHandlers } from '../../../../src/main/handlers/table'
import { AuditSession } from '../../../../src/main/session/session'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../../../main/reliability/chainkit'
import { withSqliteCopy } from '../../../main/testing/fixtures'
import { mulberry32 } from '../../../main/testing/prng'

const scratch = scratchDir('filter-names')
afterAll(() => scratch.cleanup())
afterEach(cleanup)
const ctx = { transport: 'ipc' as const, trusted: true }
const MODELS = 20_000
const BIG = 1 << 20

function chain(): { path: string } {
  const rnd = mulberry32(7)
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  const add = (model: string, provider: string) =>
    rows.push(
      spanRow({
        timestamp_ns: t0 + BigInt(rows.length) * 1_000_000_000n,
        attributes: { 'gen_ai.provider.name': provider, 'gen_ai.request.model': model },
      }),
    )
  for (let i = 0; i < MODELS; i++) add(`model-${i.toString(36)}-${Math.floor(rnd() * 1e9)}`, `p${i % 150}`)
  // Repeats (the most frequent come first) and names of a megabyte.
  for (let i = 0; i < 300; i++) add(`model-${Math.floor(rnd() * 40).toString(36)}-hot`, 'p0')
  for (let i = 0; i < 3; i++) add(`huge-${i}-` + 'x'.repeat(BIG), 'p1')
  const path = join(scratch.dir, 'names.db')
  writeChain(path, Buffer.alloc(32, 5), rows)
  return { path }
}

function bar(
  overview: ChainOverview,
  searchNames: (field: 'provider' | 'model', query: string) => Promise<NamePage>,
  wholeNames?: (field: 'provider' | 'model', query: string, offset: number) => Promise<NamePage>,
) {
  let view: ViewState = initialView
  const el = () => (
    <FilterBar
      overview={overview}
      view={view}
      dispatch={dispatch}
      flaggedCount={null}
      rangeLabel={null}
      searchNames={searchNames}
      {...(wholeNames ? { wholeNames } : {})}
    />
  )
  const dispatch = (a: ViewAction): void => {
    view = viewReducer(view, a)
    r.rerender(el())
  }
  const r = render(el())
  return { view: () => view }
}

const options = (testId: string): HTMLOptionElement[] =>
  Array.from((screen.getByTestId(testId) as HTMLSelectElement).options)

describe('the filter bar lists a bounded number of names and reaches every one by search', () => {
  it(`${MODELS} models and 150 providers`, async () => {
    const { path } = chain()
    const session = new AuditSession()
    try {
      const h = createHandlers(session)
      const overview = (await h.openChain({ path }, ctx)) as ChainOverview
      // The overview lists the most frequent names and counts the rest; the bar asks the engine.
      expect(overview.models.length).toBe(OVERVIEW_NAMES)
      const total = overview.models.length + overview.models_left!.names
      expect(total).toBeGreaterThan(MODELS)
      const every: NameCount[] = []
      for (let offset = 0; offset < total; offset += 100)
        every.push(...((await h.listNames({ field: 'model', offset }, ctx)) as NamePage).names)
      const b = bar(
        overview,
        (field, query) => h.listNames({ field, query }, ctx) as Promise<NamePage>,
        (field, query, offset) =>
          h.listNames({ field, query, offset, limit: 1, whole: true }, ctx) as Promise<NamePage>,
      )
      for (const id of ['filter-model', 'filter-provider']) {
        const opts = options(id)
        expect(opts.length, id).toBeLessThanOrEqual(NAMES_LISTED + 1)
        for (const o of opts) expect(Array.from(o.textContent!).length).toBeLessThan(NAME_SHOWN + 20)
      }
      // The most frequent names are listed without a search (the overview's order).
      const listed = options('filter-model').map((o) => o.value)
      expect(listed.slice(1, 11)).toEqual(overview.models.slice(0, 10).map((m) => m.name))
      // Round 11: a name longer than LIST_TEXT_UNITS comes clipped (the overview, every page); the
      // whole one is asked for by itself.
      const whole = async (i: number): Promise<string> =>
        ((await h.listNames({ field: 'model', offset: i, limit: 1, whole: true }, ctx)) as NamePage).names[0]!
          .name
      expect(screen.getByTestId('filter-model-more').textContent).toContain(
        `of ${total.toLocaleString('en-US')} listed`,
      )
      // Generated names from anywhere in the list, the megabyte ones included: each found by a
      // search, chosen, and its rows the engine's filter gives are SQLite's rows of that model.
      const rnd = mulberry32(99)
      const picks = [
        ...Array.from({ length: 8 }, () => every[Math.floor(rnd() * every.length)]!.name),
        await whole(every.findIndex((m) => m.name.startsWith('huge-2-'))),
        every.at(-1)!.name,
      ]
      const search = screen.getByTestId('filter-model-search') as HTMLInputElement
      for (const name of picks) {
        fireEvent.change(search, { target: { value: name.slice(0, 40).toUpperCase() } })
        // A clipped name's option is told by its text (its value is a token, not the name).
        const found = (): HTMLOptionElement | undefined =>
          options('filter-model').find((o) =>
            name.length > LIST_TEXT_UNITS ? o.textContent!.startsWith(name.slice(0, 40)) : o.value === name,
          )
        await waitFor(() => expect(found()).toBeDefined())
        expect(options('filter-model').length).toBeLessThanOrEqual(NAMES_LISTED + 1)
        fireEvent.change(screen.getByTestId('filter-model'), { target: { value: found()!.value } })
        await waitFor(() => expect(b.view().model).toBe(name))
        // The chosen name stays in the list when the search changes.
        fireEvent.change(search, { target: { value: 'no such name at all' } })
        await waitFor(() =>
          expect(screen.getByTestId('filter-model-more').textContent).toBe('no models match'),
        )
        expect(options('filter-model').some((o) => o.value === name)).toBe(true)
        const page = (await h.listEntries(
          { offset: 0, limit: 1000, filter: { model: b.view().model! } },
          ctx,
        )) as EntryPage
        const truth = withSqliteCopy(path, (db) =>
          (
            db
              .prepare(
                `SELECT seq FROM chain WHERE json_extract(canonical_body, '$.attributes."gen_ai.request.model"') = ? ORDER BY seq`,
              )
              .all(name) as { seq: number }[]
          ).map((r) => r.seq),
        )
        expect(page.rows.map((e) => e.seq)).toEqual(truth)
        // The timeline and the drift series take the same name (a 1,000-character cap refused it).
        const t = (await h.timeline({ buckets: 20, model: name }, ctx)) as { buckets: { count: number }[] }
        expect(t.buckets.reduce((n, x) => n + x.count, 0)).toBe(truth.length)
      }
      // The evidence panel: "more" draws the overview's names only, and says what it leaves out.
      render(<EvidencePanel overview={overview} />)
      const models = screen.getByTestId('overview-models')
      fireEvent.click(models.querySelector('button.link')!)
      expect(models.querySelectorAll('button.chip').length).toBe(OVERVIEW_NAMES)
      expect(screen.getByTestId('overview-models-left').textContent).toContain(
        `${overview.models_left!.names.toLocaleString('en-US')} other models`,
      )
    } finally {
      session.dispose()
    }
  }, 180_000)

  it('the evidence panel clips names of a megabyte in its chips and their tooltips', async () => {
    const path = join(scratch.dir, 'huge.db')
    const rows: RowSpec[] = Array.from({ length: 3 }, (_, i) =>
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: {
          'gen_ai.provider.name': `prov-${i}-` + 'p'.repeat(BIG),
          'gen_ai.request.model': `model-${i}-` + 'm'.repeat(BIG),
        },
      }),
    )
    writeChain(path, Buffer.alloc(32, 6), rows)
    const session = new AuditSession()
    try {
      const overview = (await createHandlers(session).openChain({ path }, ctx)) as ChainOverview
      render(<EvidencePanel overview={overview} />)
      for (const id of ['overview-providers', 'overview-models']) {
        const chips = Array.from(screen.getByTestId(id).querySelectorAll('button.chip'))
        expect(chips.length, id).toBe(3)
        for (const c of chips) {
          expect(Array.from(c.textContent!).length).toBeLessThan(NAME_SHOWN + 20)
          expect(Array.from(c.getAttribute('title')!).length).toBeLessThan(NAME_SHOWN + 20)
        }
      }
    } finally {
      session.dispose()
    }
  }, 60_000)
})
