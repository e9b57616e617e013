// @vitest-environment jsdom
// A search of a file whose rows were deleted by the thousand gives back a row per deleted record,
// and the Recovered panel drew every one as a table row (10^5 rows in a large file). The panel now
// draws RECOVERED_WINDOW rows at a time, says where it is, moves by previous / next, and moves to
// the row selected whenever the selection changes (a deep link to a recovered seq, the timeline's
// mark), keeping it in view. Rows recovered by the engine from a chain written for the test (rows
// deleted in generated runs, secure_delete off); selections generated over the whole list.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { RecoveredPanel, RECOVERED_WINDOW } from '../../../../src/renderer/src/components/RecoveredPanel'
import { rowKey } from '../../../../src/renderer/src/lib/recovered'
import type { RecoveredState } from '../../../../src/renderer/src/lib/stores/recovered-store'
import type { RecoveredRow } from '../../../../src/shared/recovery-types'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { recoverFile } from '../../../../src/main/recovery/verdict'
import { scratchDir, spanRows, writeChain } from '../../../main/reliability/chainkit'
import { mulberry32 } from '../../../main/testing/prng'

const scratch = scratchDir('recovered-window')
afterAll(() => scratch.cleanup())
afterEach(cleanup)
const KEY = Buffer.alloc(32, 9)

function recoveredRows(): RecoveredRow[] {
  const path = join(scratch.dir, 'deleted.db')
  writeChain(path, KEY, spanRows(3000))
  const db = new Database(path)
  try {
    db.pragma('secure_delete = OFF')
    const rnd = mulberry32(31)
    // Runs of deleted rows across the chain (a live row kept between runs).
    for (let seq = 20; seq < 2980;) {
      const run = 40 + Math.floor(rnd() * 200)
      db.prepare('DELETE FROM chain WHERE seq >= ? AND seq < ?').run(seq, Math.min(seq + run, 2980))
      seq += run + 1 + Math.floor(rnd() * 3)
    }
  } finally {
    db.close()
  }
  return recoverFile(path, parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])).rows
}

function panel(rows: RecoveredRow[], selected: string | null) {
  const state = (sel: string | null): RecoveredState => ({
    origin: 'recover',
    summary: null,
    rows,
    uncommitted: [],
    rewritten: new Set(),
    selected: sel,
    truncated: [],
  })
  const el = (sel: string | null) => (
    <RecoveredPanel
      state={state(sel)}
      job={{ status: null, error: null }}
      selectedRow={null}
      onRecover={() => undefined}
      onCancel={() => undefined}
      onSelect={() => undefined}
      onSelectSeq={() => undefined}
    />
  )
  const r = render(el(selected))
  return { select: (sel: string | null) => r.rerender(el(sel)) }
}

const drawn = (): HTMLElement[] => screen.queryAllByTestId('recovered-row')

describe('the Recovered panel draws a window of rows that keeps the selection in view', () => {
  const rows = recoveredRows()

  it('the engine recovered more rows than one window', () => {
    expect(rows.length).toBeGreaterThan(4 * RECOVERED_WINDOW)
  })

  it('generated selections: at most one window drawn, the selected row among them, the place said', () => {
    const p = panel(rows, null)
    expect(drawn().length).toBe(RECOVERED_WINDOW)
    expect(screen.getByTestId('recovered-table-place').textContent).toBe(
      `rows 1–${RECOVERED_WINDOW.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')}`,
    )
    const rnd = mulberry32(5)
    for (let i = 0; i < 8; i++) {
      const at = i === 0 ? rows.length - 1 : Math.floor(rnd() * rows.length)
      const key = rowKey(rows[at]!)
      p.select(key)
      const now = drawn()
      expect(now.length).toBeLessThanOrEqual(RECOVERED_WINDOW)
      const sel = now.filter((tr) => tr.getAttribute('aria-selected') === 'true')
      expect(sel.length, `selection ${at}`).toBe(1)
      expect(sel[0]!.getAttribute('data-seq')).toBe(String(rows[at]!.seq ?? ''))
    }
  }, 120_000)

  it('previous and next walk every row once; a new selection brings its row back', () => {
    const p = panel(rows, null)
    const seen: string[] = []
    for (;;) {
      seen.push(...drawn().map((tr) => tr.getAttribute('data-seq')! + '/' + tr.getAttribute('data-status')))
      const next = screen.getByTestId('recovered-table-next') as HTMLButtonElement
      if (next.disabled) break
      fireEvent.click(next)
    }
    expect(seen).toEqual(rows.map((r) => `${r.seq ?? ''}/${r.status}`))
    // Moving away from a selected row is the auditor's choice; selecting another brings it in view.
    const first = rowKey(rows[3]!)
    p.select(first)
    expect(drawn().some((tr) => tr.getAttribute('aria-selected') === 'true')).toBe(true)
    fireEvent.click(screen.getByTestId('recovered-table-next'))
    expect(drawn().some((tr) => tr.getAttribute('aria-selected') === 'true')).toBe(false)
    p.select(rowKey(rows[rows.length - 2]!))
    expect(drawn().some((tr) => tr.getAttribute('aria-selected') === 'true')).toBe(true)
  }, 120_000)
})
