// "Compare with an earlier report…": an exported report (JSON or its HTML page) or an earlier
// verdict becomes the prior of the verify that runs next; the verdict then says whether the head
// it recorded is still there and whether every row it covered still has the seq and hmac_hash it
// recorded (all a report's rows digest holds: it cannot see a body edit that kept the hmac_hash).
import type { PriorInfo } from '../../../shared/custody-types'
import { FileButton } from './FileButton'
import { counted } from '../lib/format'

interface Props {
  prior: PriorInfo | null
  file: string | null
  busy: boolean
  error: string | null
  onFile: (file: File) => void
  onClear: () => void
}

export function PriorChooser({ prior, file, busy, error, onFile, onClear }: Props) {
  return (
    <div className="prior" data-testid="prior">
      <div className="row gap wrap">
        <FileButton
          label="Compare with an earlier report…"
          accept=".json,.html,.htm,application/json,text/html"
          disabled={busy}
          onFile={onFile}
          testId="prior-file-input"
          small
        />
        {prior ? (
          <button type="button" className="btn small" onClick={onClear} data-testid="prior-clear">
            Clear
          </button>
        ) : null}
      </div>
      {prior ? (
        <p className="small" data-testid="prior-info">
          Comparing with {prior.kind === 'report' ? 'report' : 'verdict'} {file ? <code>{file}</code> : null}
          {prior.generated_at ? ` of ${prior.generated_at}` : ''}: head seq{' '}
          <span data-testid="prior-last-seq">{prior.last_seq}</span>
          {prior.rows !== null ? `, ${counted(prior.rows, 'row')} covered` : ''}
          {prior.signed_by ? (
            <>
              , signed by <code data-testid="prior-signed-by">{prior.signed_by}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {error ? (
        <p className="error-line" role="alert" data-testid="prior-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
