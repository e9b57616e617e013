// The Recovered panel: what the files still remember (the verdict's recovered rows, or everything a
// search of the files found), the search's note, and the rows — seq, status, proof, body hash, link,
// where each was found. A row selected shows its body and page history below the list.
import { useState } from 'react'
import type { JobState } from '../lib/stores/job-runner'
import type { RecoveredState } from '../lib/stores/recovered-store'
import type { RecoveredRow } from '../../../shared/recovery-types'
import type { Finding } from '../../../shared/verify-types'
import { formatCount } from '../lib/format'
import { bodyLabel, linkLabel, proofLabel, rowKey, seqLabel, sourceLabel } from '../lib/recovered'
import { JobProgress } from './JobProgress'
import { RecoveredRowView } from './RecoveredRowView'
import { RecoveredStatus } from './RecoveredStatus'
import './recovered.css'

interface Props {
  state: RecoveredState
  job: JobState
  selectedRow: RecoveredRow | null
  onRecover: () => void
  onCancel: () => void
  onSelect: (key: string | null) => void
  onSelectSeq: (seq: number) => void
}

const LIMIT_NOTE =
  'Absence of remnants proves nothing: VACUUM, secure_delete, auto-vacuum and page reuse erase them.'

/**
 * Rows drawn at once: a search of a large file's free space recovers a row per deleted record
 * (10^5 rows drew 10^5 table rows, each with its status and sources). The list is shown a window at
 * a time, with its place and buttons to move; the window holds the row selected wherever the
 * selection comes from (a click, a deep link to a recovered seq, the timeline's mark).
 */
export const RECOVERED_WINDOW = 500

/** The first index of the window holding `selected` (the window kept when nothing is selected). */
function windowStart(rows: RecoveredRow[], selected: string | null, start: number): number {
  const at = selected === null ? -1 : rows.findIndex((r) => rowKey(r) === selected)
  if (at >= 0 && (at < start || at >= start + RECOVERED_WINDOW))
    return Math.floor(at / RECOVERED_WINDOW) * RECOVERED_WINDOW
  return start < rows.length ? start : 0
}

function Rows({
  rows: all,
  selected,
  onSelect,
  testId,
  truncated,
}: {
  rows: RecoveredRow[]
  truncated: readonly Finding[]
  selected: string | null
  onSelect: (key: string | null) => void
  testId: string
}) {
  // The window moves to the selected row when the selection (or the list) changes, and is the
  // auditor's to move otherwise (previous / next leave a selected row out of view until it changes).
  const [view, setView] = useState(() => ({ start: windowStart(all, selected, 0), selected, rows: all }))
  let start = view.start
  if (view.selected !== selected || view.rows !== all) {
    start = windowStart(all, selected, view.rows === all ? view.start : 0)
    setView({ start, selected, rows: all })
  }
  const setKept = (s: number): void => setView({ start: s, selected, rows: all })
  const rows = all.length > RECOVERED_WINDOW ? all.slice(start, start + RECOVERED_WINDOW) : all
  return (
    <>
      {all.length > RECOVERED_WINDOW ? (
        <div className="row gap recovered-window" data-testid={`${testId}-window`}>
          <button
            type="button"
            className="btn small"
            disabled={start === 0}
            onClick={() => setKept(Math.max(0, start - RECOVERED_WINDOW))}
            data-testid={`${testId}-previous`}
          >
            ‹ previous {formatCount(RECOVERED_WINDOW)}
          </button>
          <span className="small" data-testid={`${testId}-place`}>
            rows {formatCount(start + 1)}–{formatCount(start + rows.length)} of {formatCount(all.length)}
          </span>
          <button
            type="button"
            className="btn small"
            disabled={start + RECOVERED_WINDOW >= all.length}
            onClick={() => setKept(start + RECOVERED_WINDOW)}
            data-testid={`${testId}-next`}
          >
            next {formatCount(Math.min(RECOVERED_WINDOW, all.length - start - rows.length))} ›
          </button>
        </div>
      ) : null}
      <table className="grid compact recovered-table" data-testid={testId}>
        <thead>
          <tr>
            <th className="num">seq</th>
            <th>status</th>
            <th>proof</th>
            <th>body</th>
            <th>links to</th>
            <th>found in</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const key = rowKey(r)
            const on = key === selected
            return (
              <tr
                key={key}
                className={`clickable${on ? ' selected' : ''}`}
                data-testid="recovered-row"
                data-seq={r.seq ?? ''}
                data-status={r.status}
                data-proven={String(r.key_index !== null)}
                aria-selected={on}
                tabIndex={0}
                onClick={() => onSelect(on ? null : key)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault()
                    onSelect(on ? null : key)
                  }
                }}
              >
                <td className="num mono">{seqLabel(r)}</td>
                <td>
                  <RecoveredStatus row={r} findings={truncated} />
                </td>
                <td className={r.key_index === null ? 'muted' : 'ok-text'}>{proofLabel(r)}</td>
                <td className={r.body_ok === false ? 'bad-text' : ''}>{bodyLabel(r)}</td>
                <td>{linkLabel(r)}</td>
                <td className="small mono" title={r.sources.map(sourceLabel).join('\n')}>
                  {sourceLabel(r.source)}
                  {r.sources.length > 1 ? <span className="muted"> +{r.sources.length - 1}</span> : null}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </>
  )
}

export function RecoveredPanel({
  state,
  job,
  selectedRow,
  onRecover,
  onCancel,
  onSelect,
  onSelectSeq,
}: Props) {
  const { summary, rows, uncommitted, origin } = state
  return (
    <div className="recovered-panel" data-testid="recovered-panel" data-origin={origin ?? ''}>
      <div className="row gap wrap">
        <button
          type="button"
          className="btn"
          onClick={onRecover}
          disabled={job.status !== null}
          data-testid="recover-button"
          title="Search the files for every deleted or earlier row, proven or not"
        >
          Search files
        </button>
        <span className="muted small">
          {origin === 'verify'
            ? 'rows from the last verify'
            : origin === 'recover'
              ? 'everything the search found, proven or not'
              : 'verify the chain, or search its files'}
        </span>
      </div>
      {job.status ? <JobProgress status={job.status} onCancel={onCancel} testId="recover-job" /> : null}
      {job.error ? (
        <p className="error-line" role="alert" data-testid="recover-error">
          {job.error}
        </p>
      ) : null}
      {summary ? (
        <div className="recovered-summary" data-testid="recovered-summary">
          <p data-testid="recovered-note">{summary.note}</p>
          <p className="muted small">
            {formatCount(summary.recovered)} recovered · {formatCount(summary.proven)} proven ·{' '}
            {formatCount(summary.copies_of_live)} copies of live rows not listed ·{' '}
            {formatCount(summary.uncommitted_only)} not known to have been committed
            {summary.searched
              ? ` · read ${formatCount(summary.scanned.db_pages)} db pages, ${formatCount(summary.scanned.wal_frames)} WAL frames, ${formatCount(summary.scanned.freelist_pages)} freelist pages`
              : ''}
          </p>
          {summary.note.includes('absence of remnants') ? null : (
            <p className="muted small" data-testid="recovered-limits">
              {LIMIT_NOTE}
            </p>
          )}
        </div>
      ) : null}
      {summary && rows.length === 0 ? (
        <p className="muted" data-testid="recovered-empty">
          Nothing recovered.
        </p>
      ) : null}
      {rows.length > 0 ? (
        <Rows
          rows={rows}
          selected={state.selected}
          onSelect={onSelect}
          testId="recovered-table"
          truncated={state.truncated}
        />
      ) : null}
      {uncommitted.length > 0 ? (
        <>
          <p className="small">
            Not known to have been committed, never findings: a transaction in flight or rolled back leaves
            rows where these are; the notices say what else could.
          </p>
          <Rows
            rows={uncommitted}
            selected={state.selected}
            onSelect={onSelect}
            testId="recovered-uncommitted"
            truncated={state.truncated}
          />
        </>
      ) : null}
      {selectedRow ? (
        <RecoveredRowView row={selectedRow} findings={state.truncated} onSelectSeq={onSelectSeq} />
      ) : null}
    </div>
  )
}
