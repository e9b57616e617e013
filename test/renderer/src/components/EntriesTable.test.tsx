// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApiProvider } from '../../../../src/renderer/src/app/api-context'
import { fakeApi } from '../test/fake-api'
import { EntriesTable } from '../../../../src/renderer/src/components/EntriesTable'

afterEach(cleanup)

function setup(rows: number, props: Partial<Parameters<typeof EntriesTable>[0]> = {}) {
  const { api, calls } = fakeApi({ rows })
  const onSelect = vi.fn()
  const onReplayDrop = vi.fn()
  const view = render(
    <ApiProvider api={api}>
      <EntriesTable
        listingKey="k"
        filter={undefined}
        sort="seq_asc"
        onSortBy={() => undefined}
        selectedSeq={null}
        onSelect={onSelect}
        isFlagged={(s) => (s === 3 ? 'verify: body hash mismatch' : null)}
        replayStatus={() => null}
        onReplayDrop={onReplayDrop}
        description="all entries"
        {...props}
      />
    </ApiProvider>,
  )
  return { api, calls, onSelect, onReplayDrop, ...view }
}

const seqs = () => screen.getAllByTestId('entry-row').map((r) => Number(r.getAttribute('data-seq')))

describe('EntriesTable', () => {
  it('lists a million rows by fetching only the pages it shows', async () => {
    const { calls } = setup(1_000_000)
    await waitFor(() => expect(screen.getByTestId('entries-count').textContent).toContain('1,000,000 rows'))
    await waitFor(() => expect(seqs()[0]).toBe(1))
    expect(seqs().length).toBeLessThan(40)
    const listCalls = calls.filter((c) => c.name === 'listEntries')
    expect(listCalls.length).toBeLessThanOrEqual(2)
    expect(listCalls[0]!.req).toMatchObject({ offset: 0, limit: 200, sort: 'seq_asc' })
    // Jump to the end: only the last page is fetched.
    act(() => {
      fireEvent.keyDown(screen.getByTestId('entries-list'), { key: 'End' })
    })
    await waitFor(() => expect(seqs()).toContain(1_000_000))
    const after = calls
      .filter((c) => c.name === 'listEntries')
      .map((c) => (c.req as { offset: number }).offset)
    expect(after).toContain(999_800)
    expect(after.length).toBeLessThanOrEqual(4)
  })

  it('marks flagged rows and opens a row with Enter or a click', async () => {
    const { onSelect } = setup(240)
    await waitFor(() => expect(seqs()[0]).toBe(1))
    const r3 = screen.getAllByTestId('entry-row')[2]!
    expect(r3.className).toContain('flagged')
    const list = screen.getByTestId('entries-list')
    fireEvent.keyDown(list, { key: 'ArrowDown' })
    fireEvent.keyDown(list, { key: 'ArrowDown' })
    fireEvent.keyDown(list, { key: 'Enter' })
    await waitFor(() => expect(onSelect).toHaveBeenCalledWith(expect.objectContaining({ seq: 2 })))
    fireEvent.click(r3)
    expect(onSelect).toHaveBeenLastCalledWith(expect.objectContaining({ seq: 3 }))
  })

  it('locates a seq typed in the go-to box', async () => {
    const { onSelect, calls } = setup(5000)
    await waitFor(() => expect(seqs()[0]).toBe(1))
    fireEvent.change(screen.getByTestId('goto-seq'), { target: { value: '4321' } })
    fireEvent.submit(screen.getByTestId('goto-seq').closest('form')!)
    await waitFor(() => expect(onSelect).toHaveBeenCalledWith(expect.objectContaining({ seq: 4321 })))
    expect(calls.some((c) => c.name === 'locateEntry' && (c.req as { seq: number }).seq === 4321)).toBe(true)
    await waitFor(() => expect(seqs()).toContain(4321))
    fireEvent.change(screen.getByTestId('goto-seq'), { target: { value: '999999' } })
    fireEvent.submit(screen.getByTestId('goto-seq').closest('form')!)
    await waitFor(() =>
      expect(screen.getByTestId('goto-msg').textContent).toBe('seq 999999 is not in this listing'),
    )
  })

  it('hands a file dropped on a row to the replay checker with that row’s seq', async () => {
    const { onReplayDrop, onSelect } = setup(240)
    await waitFor(() => expect(seqs()[0]).toBe(1))
    const file = new File(['hello'], 'clean.replay-8.txt', { type: 'text/plain' })
    const r = screen.getAllByTestId('entry-row')[7]!
    fireEvent.drop(r, { dataTransfer: { files: [file], types: ['Files'] } })
    expect(onReplayDrop).toHaveBeenCalledWith(8, file)
    expect(onSelect).toHaveBeenCalledWith(expect.objectContaining({ seq: 8 }))
    // A chain file dropped on a row is left to the window (which opens it).
    const db = new File(['SQLite format 3'], 'other.db')
    fireEvent.drop(screen.getAllByTestId('entry-row')[3]!, {
      dataTransfer: { files: [db], types: ['Files'] },
    })
    expect(onReplayDrop).toHaveBeenCalledTimes(1)
  })
})
