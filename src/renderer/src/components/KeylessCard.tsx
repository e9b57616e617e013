// The keyless check the engine runs on every open (`verify --keyless`), shown before any key is
// typed: its breaks (body hashes, links, seq contiguity, unsealed columns) with the keyed verdict's
// finding list, and — always — that the HMACs were not checked. It is styled and worded as unproven,
// never as VALID. Once a keyed verdict is on screen it shrinks to one line under it: the keyed
// verdict decides, and the keyless line only says what was seen before.
import type { JobStatus } from '../../../shared/job-types'
import type { VerifyVerdict } from '../../../shared/verify-types'
import { HMAC_NOT_CHECKED, keylessAdvice, keylessHeadline } from '../lib/keyless'
import { JobProgress } from './JobProgress'
import { FindingsTable } from './VerdictView'
import './drift.css'

interface Props {
  verdict: VerifyVerdict | null
  status: JobStatus | null
  error: string | null
  hasKey: boolean
  /** A keyed verdict is shown: this card gives way to it. */
  superseded: boolean
  onCancel: () => void
  onSelectSeq: (seq: number) => void
}

export function KeylessCard({ verdict, status, error, hasKey, superseded, onCancel, onSelectSeq }: Props) {
  if (status)
    return (
      <div className="keyless running" data-testid="keyless-card" data-state="running">
        <p className="keyless-head">Keyless check running: body hashes, links, seqs ({HMAC_NOT_CHECKED})</p>
        <JobProgress status={status} onCancel={onCancel} testId="keyless-progress" />
      </div>
    )
  if (error)
    return (
      <div className="keyless" data-testid="keyless-card" data-state="error">
        <p className="error-line" data-testid="keyless-error">
          Keyless check {error === 'cancelled' ? 'cancelled' : `failed: ${error}`}
        </p>
      </div>
    )
  if (!verdict) return null
  const broken = verdict.findings.length > 0
  const state = verdict.cancelled ? 'cancelled' : broken ? 'broken' : 'unproven'
  if (superseded)
    return (
      <p
        className="keyless-note muted small"
        data-testid="keyless-card"
        data-state={state}
        data-superseded="true"
      >
        Before the key: <span data-testid="keyless-headline">{keylessHeadline(verdict)}</span> — the keyed
        verdict below decides.
      </p>
    )
  return (
    <div className={`keyless ${state}`} data-testid="keyless-card" data-state={state}>
      <p className="keyless-head" data-testid="keyless-headline">
        {keylessHeadline(verdict)}
      </p>
      <p className="keyless-sub small" data-testid="keyless-advice">
        <span className="pill unknown" data-testid="keyless-pill">
          {hasKey ? 'seals not checked yet' : 'no key: unproven'}
        </span>{' '}
        {keylessAdvice(verdict, hasKey)}
      </p>
      {broken ? (
        <FindingsTable findings={verdict.findings} onSelectSeq={onSelectSeq} testIdPrefix="keyless-" />
      ) : null}
    </div>
  )
}
