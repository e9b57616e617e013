// The replays checked in bulk (issue 37): every line's status and reason, filterable by status and
// text, each row jumping to its entry; files whose names give no seq wait here for one.
import { useMemo, useState } from 'react'
import type { ReplayBatchItem, ReplayBatchStatus } from '../../../shared/replay-types'

const LABEL: Record<ReplayBatchStatus, string> = {
  matched: 'matched',
  mismatch_seeded: 'mismatch (seeded)',
  mismatch_unseeded: 'drift (no seed)',
  no_metadata: 'no replay metadata',
  row_not_verified: 'row does not verify',
  prompt_differs: 'prompt differs',
  seq_missing: 'seq missing',
  bad_line: 'bad line',
}
const GOOD: ReadonlySet<ReplayBatchStatus> = new Set(['matched'])
const NEUTRAL: ReadonlySet<ReplayBatchStatus> = new Set(['mismatch_unseeded'])

function Pending({
  file,
  onAssign,
  onDismiss,
}: {
  file: File
  onAssign: (f: File, seq: number) => void
  onDismiss: (f: File) => void
}) {
  const [seq, setSeq] = useState('')
  const n = /^\d{1,15}$/.test(seq.trim()) ? Number(seq.trim()) : null
  return (
    <li data-testid="replay-pending">
      <span className="mono small">{file.name}</span> gives no seq in its name (replay-N.txt):{' '}
      <input
        aria-label={`seq for ${file.name}`}
        className="small"
        size={8}
        value={seq}
        onChange={(e) => setSeq(e.target.value)}
        inputMode="numeric"
      />{' '}
      <button type="button" disabled={n === null} onClick={() => n !== null && onAssign(file, n)}>
        Check
      </button>{' '}
      <button type="button" className="link" onClick={() => onDismiss(file)}>
        dismiss
      </button>
    </li>
  )
}

export function ReplayBatchPanel({
  items,
  pending,
  busy,
  error,
  onSelectSeq,
  onAssign,
  onDismiss,
  onClear,
  omitted = { lines: 0, checks: 0 },
}: {
  items: ReplayBatchItem[]
  pending: File[]
  busy: boolean
  error: string | null
  /** Lines checked but not listed (and checks not kept): the counts below are of the lines listed. */
  omitted?: { lines: number; checks: number }
  onSelectSeq: (seq: number) => void
  onAssign: (f: File, seq: number) => void
  onDismiss: (f: File) => void
  onClear: () => void
}) {
  const [status, setStatus] = useState<ReplayBatchStatus | 'all'>('all')
  const [text, setText] = useState('')
  const counts = useMemo(() => {
    const c = new Map<ReplayBatchStatus, number>()
    for (const i of items) c.set(i.status, (c.get(i.status) ?? 0) + 1)
    return c
  }, [items])
  const shown = useMemo(() => {
    const t = text.trim().toLowerCase()
    return items.filter(
      (i) =>
        (status === 'all' || i.status === status) &&
        (t === '' || `${i.name} ${i.seq ?? ''} ${i.reason ?? ''}`.toLowerCase().includes(t)),
    )
  }, [items, status, text])
  if (items.length === 0 && pending.length === 0 && !busy && !error) return null
  return (
    <section className="replay-batch pad" data-testid="replay-batch">
      <div className="row gap">
        <strong>Replay batch</strong>
        <span className="muted small" data-testid="replay-batch-total">
          {items.length} line{items.length === 1 ? '' : 's'}
          {busy ? ' · checking…' : ''}
        </span>
        {omitted.lines > 0 || omitted.checks > 0 ? (
          <span className="warn-text small" data-testid="replay-batch-omitted">
            {omitted.lines} more line{omitted.lines === 1 ? ' was' : 's were'} checked but not listed,{' '}
            {omitted.checks} check{omitted.checks === 1 ? '' : 's'} not kept for the report: the counts here
            are of the lines listed
          </span>
        ) : null}
        <label className="small">
          status{' '}
          <select
            value={status}
            onChange={(e) => setStatus(e.target.value as ReplayBatchStatus | 'all')}
            data-testid="replay-batch-status"
          >
            <option value="all">all</option>
            {(Object.keys(LABEL) as ReplayBatchStatus[]).map((s) => (
              <option key={s} value={s}>
                {LABEL[s]} ({counts.get(s) ?? 0})
              </option>
            ))}
          </select>
        </label>
        <input
          className="small"
          placeholder="filter name, seq, reason"
          aria-label="filter replay results"
          value={text}
          onChange={(e) => setText(e.target.value)}
          data-testid="replay-batch-filter"
        />
        <button type="button" className="link small" onClick={onClear}>
          clear
        </button>
      </div>
      {error ? <p className="error-line">{error}</p> : null}
      {pending.length > 0 ? (
        <ul className="small">
          {pending.map((f, i) => (
            <Pending key={`${f.name}-${i}`} file={f} onAssign={onAssign} onDismiss={onDismiss} />
          ))}
        </ul>
      ) : null}
      <table className="grid compact" data-testid="replay-batch-list">
        <thead>
          <tr>
            <th>line</th>
            <th>source</th>
            <th>seq</th>
            <th>status</th>
            <th>reason</th>
          </tr>
        </thead>
        <tbody>
          {shown.slice(0, 2000).map((i) => (
            <tr key={`${i.line}-${i.name}`} data-testid="replay-batch-row" data-status={i.status}>
              <td className="small">{i.line}</td>
              <td className="small mono">{i.name}</td>
              <td>
                {i.seq !== null && i.status !== 'seq_missing' ? (
                  <button type="button" className="link" onClick={() => onSelectSeq(i.seq!)}>
                    {i.seq}
                  </button>
                ) : (
                  (i.seq ?? '—')
                )}
              </td>
              <td>
                <span
                  className={`pill ${GOOD.has(i.status) ? 'ok' : NEUTRAL.has(i.status) ? 'warn' : 'bad'}`}
                >
                  {LABEL[i.status]}
                </span>
              </td>
              <td className="small">{i.reason ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length > 2000 ? (
        <p className="muted small">{shown.length - 2000} more: narrow the filter to see them</p>
      ) : null}
    </section>
  )
}
