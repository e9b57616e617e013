// The page history of a row: the page images (database file pages, WAL frames) that hold each of its
// versions, in the order the files were written, and where it changed to the live version.
import type { PageHistory as History } from '../lib/recovered'
import './recovered.css'

interface Props {
  history: History
  /** The label of a recovered version (by index). */
  versionLabel: (i: number) => string
}

export function PageHistory({ history, versionLabel }: Props) {
  if (history.steps.length === 0) return null
  return (
    <div className="page-history" data-testid="page-history">
      <div className="body-head">
        <span>page history</span>
        <span className="muted small">the page images that hold a version of this row, oldest first</span>
      </div>
      <ol className="history-steps">
        {history.steps.map((s, i) => (
          <li
            key={i}
            className={`history-step ${s.version === 'live' ? 'live' : 'earlier'}${s.now ? ' now' : ''}`}
            data-testid="history-step"
            data-version={s.version === 'live' ? 'live' : String(s.version)}
            title={s.detail}
          >
            <span className="history-dot" aria-hidden />
            <span className="history-place">{s.place}</span>
            <span className="history-version">
              {s.version === 'live' ? (s.now ? 'live (now)' : 'live version') : versionLabel(s.version)}
            </span>
            <span className="sr-only">{s.detail}</span>
          </li>
        ))}
      </ol>
      {history.change ? (
        <p className="small" data-testid="history-change">
          changed to the live version between <b>{history.change.from}</b> and <b>{history.change.to}</b>
          {history.change.to.startsWith('WAL frame') ? ' (the transaction that wrote that frame)' : ''}
        </p>
      ) : null}
    </div>
  )
}
