// @vitest-environment jsdom
// A chain's text columns are its writer's to make as long as it likes: a page of the entries table
// (up to 1,000 rows) carried every span name, model, provider, status, kind and hash whole — 1 MB
// each here, so a page of such rows was a gigabyte over IPC or HTTP for cells a few words wide. Now
// a listed row carries each text field to LIST_TEXT_UNITS (never half a code point) and names what
// it clipped; the cell says so, and a copy or a "filter by this value" takes the entry's whole
// value. Generated rows of long, astral and short values, written to a real chain and read by the
// real handler table; getEntry (the detail, whole) is the oracle.
import { join } from 'node:path'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import {
  LIST_TEXT_UNITS,
  type ChainOverview,
  type EntryDetail,
  type EntryPage,
} from '../../../../src/shared/chain-types'
import { createHandlers } from '../../../../src/main/handlers/table'
import { AuditSession } from '../../../../src/main/session/session'
import { ApiProvider } from '../../../../src/renderer/src/app/api-context'
import { EntriesTable } from '../../../../src/renderer/src/components/EntriesTable'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../../../main/reliability/chainkit'
import { mulberry32 } from '../../../main/testing/prng'
import { fakeApi } from '../test/fake-api'

const scratch = scratchDir('list-clip')
const session = new AuditSession()
afterAll(() => {
  session.dispose()
  scratch.cleanup()
})
afterEach(cleanup)
const ctx = { transport: 'ipc' as const, trusted: true }

const PIECES = ['a', 'é', '中', '😀', '\u202e', ' ', 'Z']
/** A generated text of about `units` UTF-16 units (astral characters may cross any boundary). */
function textOf(units: number, rnd: () => number): string {
  let s = ''
  while (s.length < units) s += PIECES[Math.floor(rnd() * PIECES.length)]!
  return s
}

function chain(): string {
  const rnd = mulberry32(2929)
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  const lengths = [1, 40, LIST_TEXT_UNITS - 1, LIST_TEXT_UNITS, LIST_TEXT_UNITS + 1, 300, 5000, 1 << 20]
  for (let i = 0; i < 60; i++) {
    const pick = () => lengths[Math.floor(rnd() * lengths.length)]!
    const row = spanRow({
      timestamp_ns: t0 + BigInt(i) * 1_000_000_000n,
      name: textOf(pick(), rnd),
      attributes: {
        'gen_ai.provider.name': textOf(pick(), rnd),
        'gen_ai.request.model': textOf(pick(), rnd),
      },
    })
    // A span kind of the writer's choosing too (an unsealed column).
    row.span_kind = textOf(pick(), rnd)
    row.span_name = textOf(pick(), rnd)
    rows.push(row)
  }
  const path = join(scratch.dir, 'long-names.db')
  writeChain(path, Buffer.alloc(32, 9), rows)
  return path
}

const path = chain()
const h = createHandlers(session)

describe('a listed row carries long text clipped, and names it', () => {
  it('every field within the bound, clipped exactly when the whole value is longer, a prefix of it', async () => {
    await h.openChain({ path }, ctx)
    const page = (await h.listEntries({ offset: 0, limit: 1000 }, ctx)) as EntryPage
    expect(page.rows).toHaveLength(60)
    let clippedSeen = 0
    for (const r of page.rows) {
      const d = (await h.getEntry({ seq: r.seq }, ctx)) as EntryDetail
      const fields = [
        'timestamp_ns',
        'span_name',
        'span_kind',
        'provider',
        'model',
        'canonical_hash',
        'hmac_hash',
        'status',
      ] as const
      for (const k of fields) {
        const whole = d[k]
        const listed = r[k]
        if (typeof whole !== 'string') {
          expect(listed, `${r.seq} ${k}`).toBe(whole)
          continue
        }
        const long = whole.length > LIST_TEXT_UNITS
        expect(r.clipped?.includes(k) ?? false, `${r.seq} ${k}`).toBe(long)
        if (!long) expect(listed).toBe(whole)
        else {
          clippedSeen++
          expect(typeof listed).toBe('string')
          const l = listed as string
          expect(l.length).toBeLessThanOrEqual(LIST_TEXT_UNITS)
          expect(l.length).toBeGreaterThanOrEqual(LIST_TEXT_UNITS - 1)
          expect(whole.startsWith(l)).toBe(true)
          expect(l).not.toMatch(/[\uD800-\uDBFF]$/)
        }
      }
    }
    expect(clippedSeen).toBeGreaterThan(50)
    // The page of 60 rows is a few tens of kilobytes, not 60 megabytes.
    expect(JSON.stringify(page).length).toBeLessThan(60 * 8 * LIST_TEXT_UNITS * 4 + 60 * 1000)
  })

  it('the table marks a clipped cell, and copies and filters by the whole value', async () => {
    await h.openChain({ path }, ctx)
    const writes: string[] = []
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: async (t: string) => void writes.push(t) },
      configurable: true,
    })
    const { api } = fakeApi({
      overrides: {
        listEntries: (req) => h.listEntries(req, ctx) as Promise<EntryPage>,
        locateEntry: (req) => h.locateEntry(req, ctx) as Promise<{ index: number | null }>,
        getEntry: (req) => h.getEntry(req, ctx) as Promise<EntryDetail>,
        overview: async () => (await h.overview(undefined, ctx)) as ChainOverview,
      },
    })
    const onFilterBy = vi.fn()
    render(
      <ApiProvider api={api}>
        <EntriesTable
          listingKey="long"
          filter={undefined}
          sort="seq_asc"
          onSortBy={() => undefined}
          selectedSeq={null}
          onSelect={() => undefined}
          isFlagged={() => null}
          replayStatus={() => null}
          onReplayDrop={() => undefined}
          description="all entries"
          onFilterBy={onFilterBy}
        />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getAllByTestId('entry-row').length).toBeGreaterThan(5))
    const page = (await h.listEntries({ offset: 0, limit: 1000 }, ctx)) as EntryPage
    const rows = screen.getAllByTestId('entry-row')
    let checked = 0
    for (const el of rows.slice(0, 12)) {
      const seq = Number(el.getAttribute('data-seq'))
      const listed = page.rows.find((r) => r.seq === seq)!
      const d = (await h.getEntry({ seq }, ctx)) as EntryDetail
      const cell = el.querySelector<HTMLElement>('[data-col="span"]')!
      const clipped = listed.clipped?.includes('span_name') ?? false
      expect(cell.textContent!.endsWith('…'), `seq ${seq}`).toBe(clipped)
      expect(cell.textContent!.length).toBeLessThanOrEqual(LIST_TEXT_UNITS * 10)
      fireEvent.contextMenu(cell)
      fireEvent.click(await screen.findByTestId('menu-copy-cell'))
      await waitFor(() => expect(writes.length).toBe(checked * 2 + 1))
      expect(writes[writes.length - 1] === d.span_name, `copy of seq ${seq}`).toBe(true)
      fireEvent.contextMenu(cell)
      fireEvent.click(await screen.findByTestId('menu-filter-spanName'))
      await waitFor(() => expect(onFilterBy).toHaveBeenCalledTimes(checked + 1))
      expect(onFilterBy.mock.lastCall![0]).toBe('spanName')
      expect(onFilterBy.mock.lastCall![1] === d.span_name, `filter of seq ${seq}`).toBe(true)
      // Ctrl+C copies the row (the one the menu was opened on) with every value whole.
      fireEvent.keyDown(screen.getByTestId('entries-list'), { key: 'c', ctrlKey: true })
      await waitFor(() => expect(writes.length).toBe(checked * 2 + 2))
      expect(writes[writes.length - 1]!.split('\t').includes(d.span_name), `row of seq ${seq}`).toBe(true)
      checked++
    }
    expect(checked).toBeGreaterThan(5)
  }, 60_000)
})
