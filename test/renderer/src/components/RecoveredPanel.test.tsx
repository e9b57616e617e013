// @vitest-environment jsdom
// The Recovered panel and the entry panel's earlier versions, on what the engine recovers from the
// shared rec-* files: the rows (seq, status, proof, body, link, where found), the note, a selected
// row's body as text, the side-by-side diff of a rewritten row with the live body, its page history.
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RecoveredPanel } from '../../../../src/renderer/src/components/RecoveredPanel'
import { RecoveredVersions } from '../../../../src/renderer/src/components/RecoveredVersions'
import { rowKey } from '../../../../src/renderer/src/lib/recovered'
import type { RecoveredState } from '../../../../src/renderer/src/lib/stores/recovered-store'
import type { RecoveryResult } from '../../../../src/shared/recovery-types'
import { liveBody, recovered, recoveryCase, verdictOf } from '../test/recovered-kit'

afterEach(cleanup)

function stateOf(r: RecoveryResult, selected: string | null = null): RecoveredState {
  return {
    origin: 'recover',
    summary: r.summary,
    rows: r.rows,
    uncommitted: r.uncommitted,
    rewritten: new Set(),
    selected,
    truncated: [],
  }
}

function panel(r: RecoveryResult, selected: string | null = null) {
  const onSelect = vi.fn()
  const onSelectSeq = vi.fn()
  const row = selected ? (r.rows.find((x) => rowKey(x) === selected) ?? null) : null
  render(
    <RecoveredPanel
      state={stateOf(r, selected)}
      job={{ status: null, error: null }}
      selectedRow={row}
      onRecover={vi.fn()}
      onCancel={vi.fn()}
      onSelect={onSelect}
      onSelectSeq={onSelectSeq}
    />,
  )
  return { onSelect, onSelectSeq }
}

describe('RecoveredPanel', () => {
  it('words rows not known to have been committed as not known, never as a rollback alone', () => {
    // Rows withheld from findings (free pages past sqlite_sequence, forks on free pages, WAL frames
    // after the last commit): a cut tail with sqlite_sequence lowered reads so too.
    const r = recovered('rec-deleted-middle')
    const withheld = {
      ...r,
      summary: { ...r.summary, uncommitted_only: 2 },
      rows: [],
      uncommitted: r.rows.slice(0, 2),
    }
    panel(withheld)
    const text = document.body.textContent ?? ''
    expect(text).toContain('Not known to have been committed, never findings')
    expect(text).toContain('the notices say what else could')
    expect(text).toContain(`${withheld.summary.uncommitted_only} not known to have been committed`)
    expect(screen.getByTestId('recovered-uncommitted')).toBeTruthy()
  })

  it('calls the rows of a truncated finding "truncated", as the finding does (rec-live-truncate)', async () => {
    const v = await verdictOf('rec-live-truncate')
    const truncated = v.findings.filter((f) => f.kind === 'truncated')
    expect(truncated.length).toBeGreaterThan(0)
    render(
      <RecoveredPanel
        state={{
          origin: 'verify',
          summary: v.recovery!,
          rows: v.recovered ?? [],
          uncommitted: [],
          rewritten: new Set(),
          selected: null,
          truncated,
        }}
        job={{ status: null, error: null }}
        selectedRow={null}
        onRecover={vi.fn()}
        onCancel={vi.fn()}
        onSelect={vi.fn()}
        onSelectSeq={vi.fn()}
      />,
    )
    const rows = screen.getAllByTestId('recovered-row')
    expect(rows.length).toBe((v.recovered ?? []).length)
    for (const tr of rows) {
      const seq = Number(tr.getAttribute('data-seq'))
      const covered = truncated.some((f) => seq >= f.from_seq && seq <= f.to_seq)
      const word = within(tr).getByTestId('recovered-status').getAttribute('data-word')
      expect(word).toBe(
        covered && tr.getAttribute('data-status') === 'deleted'
          ? 'truncated'
          : tr.getAttribute('data-status'),
      )
      expect(tr.textContent).not.toMatch(/\bdeleted\b(?! from the tail)/)
      expect(tr.textContent).not.toContain('superseded page')
    }
  })

  it('lists every required row of rec-deleted-middle with its status and proof', () => {
    const c = recoveryCase('rec-deleted-middle')
    const r = recovered('rec-deleted-middle')
    panel(r)
    const rows = screen.getAllByTestId('recovered-row')
    expect(rows).toHaveLength(r.rows.length)
    for (const want of c.recovered_required) {
      const tr = rows.find((x) => x.getAttribute('data-seq') === String(want.seq))!
      expect(tr.getAttribute('data-status')).toBe(want.status)
      expect(tr.getAttribute('data-proven')).toBe('true')
      expect(within(tr).getByText('proven · key #1')).toBeTruthy()
      expect(tr.textContent).toContain('body hash ✓')
    }
    expect(screen.getByTestId('recovered-note').textContent).toBe(r.summary.note)
    expect(screen.getByTestId('recovered-limits').textContent).toContain('Absence of remnants proves nothing')
  })

  it('without a key every row is unproven, and the note says so', () => {
    const r = recovered('rec-live-truncate', false)
    panel(r)
    for (const tr of screen.getAllByTestId('recovered-row'))
      expect(tr.getAttribute('data-proven')).toBe('false')
    expect(screen.getByTestId('recovered-note').textContent).toContain('unproven')
  })

  it('a clean capture lists nothing', () => {
    panel(recovered('rec-live-clean'))
    expect(screen.queryAllByTestId('recovered-row')).toHaveLength(0)
    expect(screen.getByTestId('recovered-empty')).toBeTruthy()
    expect(screen.getByTestId('recovered-summary').textContent).toContain(
      'absence of remnants proves nothing',
    )
  })

  it('clicking a row selects it; the selected row shows its sources and its body as text, never HTML', () => {
    const r = recovered('rec-live-rewrite')
    const target = r.rows[0]!
    const { onSelect } = panel(r)
    fireEvent.click(screen.getAllByTestId('recovered-row')[0]!)
    expect(onSelect).toHaveBeenCalledWith(rowKey(target))
    cleanup()
    // A body holding markup stays text.
    const hostile = {
      ...target,
      body_b64: Buffer.from('{"a":"<img src=x onerror=alert(1)>"}').toString('base64'),
    }
    const { onSelectSeq } = panel({ ...r, rows: [hostile, ...r.rows.slice(1)] }, rowKey(hostile))
    const body = screen.getByTestId('recovered-body')
    expect(body.children).toHaveLength(0)
    expect(body.textContent).toContain('<img src=x onerror=alert(1)>')
    expect(screen.getByTestId('recovered-sources').textContent).toContain(`db page ${target.source.page}`)
    fireEvent.click(screen.getByTestId('recovered-show-live'))
    expect(onSelectSeq).toHaveBeenCalledWith(target.seq)
  })
})

describe('RecoveredVersions (entry panel)', () => {
  it('rec-live-rewrite: the proven earlier body beside the live one, the differences marked, the page history', () => {
    const c = recoveryCase('rec-live-rewrite')
    const r = recovered('rec-live-rewrite')
    for (const want of c.recovered_required) {
      const live = liveBody('rec-live-rewrite', want.seq)
      render(
        <RecoveredVersions
          liveBody={live}
          versions={r.rows.filter((x) => x.seq === want.seq)}
          rewritten={true}
          onShowRecovered={vi.fn()}
        />,
      )
      const diff = screen.getByTestId('body-diff')
      expect(Number(diff.getAttribute('data-changed'))).toBeGreaterThan(0)
      // The right column is the live body line for line; the left one the recovered body.
      const right = within(diff)
        .getAllByTestId('diff-right')
        .map((el) => el.textContent)
      expect(right.join('\n')).toBe(live)
      const left = within(diff)
        .getAllByTestId('diff-left')
        .map((el) => el.textContent)
      const earlier = JSON.parse(left.join('\n')) as unknown
      expect(earlier).not.toEqual(JSON.parse(live))
      expect(
        diff.querySelectorAll('.left mark').length + diff.querySelectorAll('.right mark').length,
      ).toBeGreaterThan(0)
      expect(screen.getByTestId('earlier-version').textContent).toContain(want.hmac_hash)
      const steps = screen.getAllByTestId('history-step')
      expect(steps[0]!.getAttribute('data-version')).toBe('0')
      expect(steps[steps.length - 1]!.getAttribute('data-version')).toBe('live')
      expect(screen.getByTestId('history-change').textContent).toContain('changed to the live version')
      cleanup()
    }
  })

  it('shows nothing for a seq with only a deleted row (no live body to compare)', () => {
    const r = recovered('rec-deleted-tail')
    const { container } = render(
      <RecoveredVersions
        liveBody="{}"
        versions={r.rows.slice(0, 1)}
        rewritten={false}
        onShowRecovered={vi.fn()}
      />,
    )
    expect(container.innerHTML).toBe('')
  })
})
