// "Check a report…": a report (JSON or its HTML page) checked again against the open chain, with
// the auditor's copy of the signer's public key when there is one (else only self-consistency).
import { useState } from 'react'
import { FileButton } from './FileButton'

interface Props {
  busy: boolean
  error: string | null
  onCheck: (report: File, publicKey: File | null) => void
}

export function ReportChecker({ busy, error, onCheck }: Props) {
  const [publicKey, setPublicKey] = useState<File | null>(null)
  return (
    <div className="report-checker" data-testid="report-checker">
      <div className="row gap wrap">
        <FileButton
          label="Check a report…"
          accept=".json,.html,.htm,application/json,text/html"
          disabled={busy}
          onFile={(f) => onCheck(f, publicKey)}
          testId="check-report-input"
          small
        />
        <FileButton
          label={publicKey ? `public key: ${publicKey.name}` : 'signer’s public key…'}
          accept=".pem"
          onFile={setPublicKey}
          testId="check-public-key-input"
          small
        />
        {publicKey ? (
          <button
            type="button"
            className="btn small"
            onClick={() => setPublicKey(null)}
            data-testid="check-public-key-clear"
          >
            no key
          </button>
        ) : null}
      </div>
      {busy ? <p className="small muted">checking the report against the chain…</p> : null}
      {error ? (
        <p className="error-line" role="alert" data-testid="check-report-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
