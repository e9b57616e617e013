// The result of "Check a report…": which chain it is about, the signature, then every field of the report, what it says and
// what the chain gives now — as `bijotel report verify` prints it. Differing fields are listed
// open; those that reproduce or were not checked are folded, the sidebar being narrow.
import type { FieldCheck, ReportCheckResult } from '../../../shared/custody-types'
import './ReportCheckView.css'

const PILL: Record<FieldCheck['status'], string> = {
  differs: 'bad',
  reproduces: 'ok',
  not_checked: 'unknown',
}
const LABEL: Record<FieldCheck['status'], string> = {
  differs: 'differs',
  reproduces: 'reproduces',
  not_checked: 'not checked',
}

/** Which chain the report is about, settled before any field (as `report verify` prints it first). */
const SUBJECT: Record<NonNullable<ReportCheckResult['subject']>['status'], string> = {
  same_file: 'this file',
  same_chain: 'this chain',
  no_common_rows: 'not this chain',
  unknown: 'unknown',
}

function FieldList({ fields }: { fields: FieldCheck[] }) {
  return (
    <ul className="field-checks">
      {fields.map((f) => (
        <li key={f.field} data-testid="report-check-field" data-field={f.field} data-status={f.status}>
          <code>{f.field}</code> <span className={`pill ${PILL[f.status]}`}>{LABEL[f.status]}</span>
          <div className="small mono muted">
            report: {f.reported}
            {f.status === 'reproduces' ? null : <> · now: {f.now}</>}
          </div>
          {f.note ? <div className="small">{f.note}</div> : null}
        </li>
      ))}
    </ul>
  )
}

interface Props {
  result: ReportCheckResult
  file: string | null
  onDismiss: () => void
}

export function ReportCheckView({ result, file, onDismiss }: Props) {
  const differs = result.fields.filter((f) => f.status === 'differs')
  const rest = result.fields.filter((f) => f.status !== 'differs')
  const sig = result.signature
  return (
    <div className="report-check" data-testid="report-check" data-ok={String(result.ok)}>
      <p>
        <strong className={result.ok ? 'ok-text' : 'bad-text'} data-testid="report-check-word">
          {result.ok ? 'REPRODUCES' : 'DOES NOT REPRODUCE'}
        </strong>{' '}
        {file ? <code>{file}</code> : null}{' '}
        <button type="button" className="btn small" onClick={onDismiss} data-testid="report-check-dismiss">
          close
        </button>
      </p>
      {result.subject ? (
        <p className="small" data-testid="report-check-subject" data-status={result.subject.status}>
          about:{' '}
          <span className={result.subject.status === 'no_common_rows' ? 'bad-text' : ''}>
            {SUBJECT[result.subject.status]}
          </span>{' '}
          — {result.subject.detail}
        </p>
      ) : null}
      <p className="small" data-testid="report-check-signature" data-status={sig.status} data-key={sig.key}>
        signature: <span className={sig.status === 'invalid' ? 'bad-text' : ''}>{sig.status}</span>
        {sig.fingerprint ? ` (${sig.fingerprint})` : ''} — {sig.detail}
      </p>
      <p className="small" data-testid="report-check-summary">
        {result.summary}
      </p>
      {differs.length > 0 ? <FieldList fields={differs} /> : null}
      <details>
        <summary className="small">
          {rest.filter((f) => f.status === 'reproduces').length} fields reproduce,{' '}
          {rest.filter((f) => f.status === 'not_checked').length} not checked
        </summary>
        <FieldList fields={rest} />
      </details>
    </div>
  )
}
