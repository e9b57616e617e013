// The window without a chain: the open controls, the last open error, the recent paths; and the
// card shown while the window switches to a chain the engine has just opened.
import type { ReactNode } from 'react'
import type { AppInfo } from '../../../shared/contract'
import { RecentList } from '../components/OpenControls'
import './Welcome.css'

interface Props {
  info: AppInfo
  controls: ReactNode
  openError: string | null
  recent: string[]
  onOpenPath: (path: string) => void
}

export function Welcome({ info, controls, openError, recent, onOpenPath }: Props) {
  return (
    <div className="welcome" data-testid="welcome">
      <div className="welcome-card">
        <h1>
          <span className="logo">◆</span> BIJOTEL Auditor <span className="muted small">{info.version}</span>
        </h1>
        <p className="muted">
          Open a BIJOTEL chain.db to audit it. The file is never modified: a verified private copy is read.
        </p>
        {controls}
        {openError ? (
          <p className="error-line" role="alert" data-testid="open-error">
            {openError}
          </p>
        ) : null}
        {info.open_roots.length > 0 ? (
          <p className="muted small">
            Web mode: chains are opened by path under {info.open_roots.join(', ')}.
          </p>
        ) : null}
        <div className="dropzone">
          {info.has_dialogs
            ? 'or drop a chain.db on this window'
            : 'dropping files opens nothing in web mode: type the path'}
        </div>
        {recent.length > 0 ? (
          <>
            <h2 className="small muted">Recent</h2>
            <RecentList recent={recent} onOpenPath={onOpenPath} />
          </>
        ) : null}
      </div>
    </div>
  )
}

/** The engine holds a chain whose overview is still being read: nothing of the previous one is shown. */
export function Switching({ path }: { path: string }) {
  return (
    <div className="welcome" data-testid="switching">
      <div className="welcome-card">
        <h1>
          <span className="logo">◆</span> BIJOTEL Auditor
        </h1>
        <p className="muted">
          Opening <span className="mono">{path}</span>…
        </p>
      </div>
    </div>
  )
}
