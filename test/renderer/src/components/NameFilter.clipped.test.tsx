// @vitest-environment jsdom
// Choosing a name the engine sent clipped (round 11: names longer than LIST_TEXT_UNITS come clipped
// in the overview and in listNames pages). The filter must be the whole name: the old bar took the
// option's text as the filter — the clipped start, which matches no row, or the rows of another
// provider whose whole name is exactly that start (another's rows shown as this one's). Generated
// chains with such pairs; every listed option (the overview's and a search's), and every overview
// chip, is chosen, and the filter's rows are SQLite's rows of the whole name at that place.
import { join } from 'node:path'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  LIST_TEXT_UNITS,
  type ChainOverview,
  type EntryPage,
  type NameCount,
  type NamePage,
} from '../../../../src/shared/chain-types'
import { FilterBar } from '../../../../src/renderer/src/components/FilterBar'
import { EvidencePanel } from '../../../../src/renderer/src/components/EvidencePanel'
import { wholeName } from '../../../../src/renderer/src/lib/whole-name'
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

const scratch = scratchDir('clipped-names')
afterAll(() => scratch.cleanup())
afterEach(cleanup)
const ctx = { transport: 'ipc' as const, trusted: true }

function chainOf(seed: number, many: number): string {
  const rnd = mulberry32(seed)
  const stem = 'q'.repeat(LIST_TEXT_UNITS)
  // The stem itself and names that clip to it; others short or long.
  const names = Array.from({ length: many }, (_, i) =>
    i === 0
      ? stem
      : i % 3 === 1
        ? `${stem}${'z'.repeat(1 + Math.floor(rnd() * 3000))}${i}`
        : `n${i}-${'y'.repeat(Math.floor(rnd() * 600))}`,
  )
  const rows: RowSpec[] = []
  for (let i = 0; i < many + 60; i++) {
    const p = i < many ? i : Math.floor(many * rnd() * rnd())
    rows.push(
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: { 'gen_ai.provider.name': names[p]!, 'gen_ai.request.model': 'm' },
      }),
    )
  }
  const path = join(scratch.dir, `c-${seed}.db`)
  writeChain(path, Buffer.alloc(32, 4), rows)
  return path
}

describe('a clipped name chosen filters by its whole name', () => {
  for (const [seed, many] of [
    [1, 12],
    [2, 30],
    [3, 130],
    [4, 9],
  ] as const)
    it(`seed ${seed}: ${many} providers`, async () => {
      const path = chainOf(seed, many)
      const session = new AuditSession()
      try {
        const h = createHandlers(session)
        const overview = (await h.openChain({ path }, ctx)) as ChainOverview
        const ask = (query: string, offset: number): Promise<NamePage> =>
          h.listNames({ field: 'provider', query, offset, limit: 1, whole: true }, ctx) as Promise<NamePage>
        const rowsOf = (name: string): number[] =>
          withSqliteCopy(path, (db) =>
            (
              db
                .prepare(
                  `SELECT seq FROM chain WHERE json_extract(canonical_body, '$.attributes."gen_ai.provider.name"') = ? ORDER BY seq`,
                )
                .all(name) as { seq: number }[]
            ).map((r) => r.seq),
          )
        const filtered = async (name: string): Promise<number[]> =>
          (
            (await h.listEntries({ offset: 0, limit: 1000, filter: { provider: name } }, ctx)) as EntryPage
          ).rows.map((r) => r.seq)
        expect(overview.providers.some((p) => p.clipped)).toBe(true)
        let view: ViewState = initialView
        const el = () => (
          <FilterBar
            overview={overview}
            view={view}
            dispatch={dispatch}
            flaggedCount={null}
            rangeLabel={null}
            searchNames={(field, query) => h.listNames({ field, query }, ctx) as Promise<NamePage>}
            wholeNames={(field, query, offset) =>
              h.listNames({ field, query, offset, limit: 1, whole: true }, ctx) as Promise<NamePage>
            }
          />
        )
        const dispatch = (a: ViewAction): void => {
          view = viewReducer(view, a)
          r.rerender(el())
        }
        const r = render(el())
        const select = screen.getByTestId('filter-provider') as HTMLSelectElement
        const count = Math.min(select.options.length - 1, 40)
        for (let i = 0; i < count; i++) {
          const want = (await ask('', i)).names[0]!.name
          // Clear the filter, then choose the i-th listed option (index 0 is "all").
          fireEvent.change(select, { target: { value: '' } })
          const opt = Array.from(select.options).filter((o) => o.value !== '')[i]!
          fireEvent.change(select, { target: { value: opt.value } })
          await waitFor(() => expect(view.provider).toBe(want))
          expect(await filtered(view.provider!)).toEqual(rowsOf(want))
        }
        // The evidence panel's chips resolve the same way (the app's Sidebar uses wholeName).
        const picked: string[] = []
        render(
          <EvidencePanel
            overview={overview}
            onPickProvider={(n: NameCount, at: number) =>
              void wholeName(ask, n, '', at).then((v) => picked.push(v))
            }
          />,
        )
        const chips = Array.from(screen.getByTestId('overview-providers').querySelectorAll('button.chip'))
        for (let i = 0; i < Math.min(chips.length, 10); i++) {
          fireEvent.click(chips[i]!)
          await waitFor(() => expect(picked.length).toBe(i + 1))
          expect(picked[i]).toBe((await ask('', i)).names[0]!.name)
        }
      } finally {
        session.dispose()
      }
    }, 60_000)
})
