// Opening a chain: the native dialog in Electron; in web mode a path (inside the server's
// --open-root folders), with the recent paths offered.
import { useId, useState, type FormEvent, type Ref } from 'react'
import type { AppInfo } from '../../../shared/contract'
import './OpenControls.css'

interface Props {
  info: AppInfo
  recent: string[]
  opening: string | null
  onOpenPath: (path: string) => void
  onPick: () => void
  inputRef?: Ref<HTMLInputElement>
  /** Header variant: one line, no sample button. */
  compact?: boolean
}

export function OpenControls({ info, recent, opening, onOpenPath, onPick, inputRef, compact }: Props) {
  const [path, setPath] = useState('')
  const listId = useId()
  const submit = (e: FormEvent): void => {
    e.preventDefault()
    const p = path.trim()
    if (p) onOpenPath(p)
  }
  const busy = opening !== null
  return (
    <div className={`open-controls${compact ? ' compact' : ''}`} data-testid="open-controls">
      {info.has_dialogs ? (
        <button
          type="button"
          className="btn primary"
          onClick={onPick}
          disabled={busy}
          data-testid="open-dialog"
          title="Open a chain.db (Ctrl/⌘+O)"
        >
          Open…
        </button>
      ) : null}
      {info.can_open_paths ? (
        <form onSubmit={submit} className="open-path">
          <input
            ref={inputRef}
            className="input mono grow"
            list={listId}
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder={
              info.open_roots.length > 0 ? `path under ${info.open_roots[0]}` : 'path to a chain.db'
            }
            aria-label="path of a chain.db to open"
            spellCheck={false}
            data-testid="open-path"
          />
          <datalist id={listId}>
            {recent.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <button
            type="submit"
            className={`btn${info.has_dialogs ? '' : ' primary'}`}
            disabled={busy || path.trim() === ''}
            data-testid="open-path-submit"
          >
            Open
          </button>
        </form>
      ) : !info.has_dialogs ? (
        <span className="muted small">
          This server opens only the chain it was started with; whoever started it can allow a folder of
          others.
        </span>
      ) : null}
      {!compact && info.sample_path ? (
        <button
          type="button"
          className="btn"
          onClick={() => info.sample_path && onOpenPath(info.sample_path)}
          disabled={busy}
          data-testid="open-sample"
        >
          Open the bundled sample
        </button>
      ) : null}
      {busy ? (
        <span className="muted small spinner-text" data-testid="opening">
          opening {opening.split(/[\\/]/).pop()}…
          <span className="opening-bar" aria-hidden />
        </span>
      ) : null}
    </div>
  )
}

export function RecentList({
  recent,
  onOpenPath,
  current,
}: {
  recent: string[]
  onOpenPath: (p: string) => void
  current?: string | null
}) {
  if (recent.length === 0) return null
  return (
    <ul className="recent" data-testid="recent-paths">
      {recent.map((p) => (
        <li key={p}>
          <button
            type="button"
            className="link mono"
            onClick={() => onOpenPath(p)}
            disabled={p === current}
            title={p}
          >
            {p}
          </button>
        </li>
      ))}
    </ul>
  )
}
