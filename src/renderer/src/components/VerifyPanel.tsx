// Verify the chain's MACs: optional range, progress with Cancel, then the verdict.
import { useState } from 'react'
import type { KeyInfo, VerifyRangeOptions, VerifyVerdict } from '../../../shared/verify-types'
import type { JobStatus } from '../../../shared/job-types'
import { JobProgress } from './JobProgress'
import { VerdictView } from './VerdictView'

interface Props {
  keys: KeyInfo[]
  verdict: VerifyVerdict | null
  status: JobStatus | null
  error: string | null
  onVerify: (range?: VerifyRangeOptions) => void
  onCancel: () => void
  onSelectSeq: (seq: number) => void
}

function parseOptInt(s: string): number | undefined {
  const t = s.trim()
  if (!/^\d+$/.test(t)) return undefined
  return Number(t)
}

export function VerifyPanel({ keys, verdict, status, error, onVerify, onCancel, onSelectSeq }: Props) {
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [last, setLast] = useState('')
  const range = (): VerifyRangeOptions | undefined => {
    const r: VerifyRangeOptions = {}
    const a = parseOptInt(from)
    const b = parseOptInt(to)
    const n = parseOptInt(last)
    if (a !== undefined) r.seq_start = a
    if (b !== undefined) r.seq_end = b
    if (n !== undefined && n > 0) r.last_n = n
    return Object.keys(r).length > 0 ? r : undefined
  }
  return (
    <div className="verify" data-testid="verify-panel">
      <div className="row gap">
        <button
          type="button"
          className="btn primary"
          disabled={status !== null}
          onClick={() => onVerify(range())}
          data-testid="verify-button"
          title="verify every row (Ctrl/⌘+Shift+V)"
        >
          Verify chain
        </button>
        <details className="inline-details">
          <summary>range</summary>
          <div className="row gap wrap">
            <NumberBox value={from} onChange={setFrom} placeholder="seq from" label="verify from seq" />
            <NumberBox value={to} onChange={setTo} placeholder="seq to" label="verify to seq" />
            <NumberBox value={last} onChange={setLast} placeholder="last N" label="verify last N rows" />
          </div>
        </details>
      </div>
      {status ? <JobProgress status={status} onCancel={onCancel} testId="verify-progress" /> : null}
      {error ? (
        <p className="error-line" role="alert" data-testid="verify-error">
          {error}
        </p>
      ) : null}
      {verdict ? <VerdictView verdict={verdict} keys={keys} onSelectSeq={onSelectSeq} /> : null}
    </div>
  )
}

function NumberBox(props: {
  value: string
  onChange: (v: string) => void
  placeholder: string
  label: string
}) {
  return (
    <input
      className="input num"
      placeholder={props.placeholder}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      inputMode="numeric"
      aria-label={props.label}
    />
  )
}
