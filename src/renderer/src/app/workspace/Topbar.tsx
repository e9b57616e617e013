// The header of an opened chain: the file, the open controls, Verify, Export (JSON, HTML page, and
// PDF in the desktop app) and Copy as JSON.
import type { ReactNode } from 'react'
import { useStore } from '../../lib/stores/store'
import { useWorkspace, useWorkspaceStore } from './context'
import './Topbar.css'

export function Topbar({ hasDialogs, openControls }: { hasDialogs: boolean; openControls: ReactNode }) {
  const ws = useWorkspaceStore()
  const path = useWorkspace((s) => s.overview.evidence.db.path)
  const exporting = useWorkspace((s) => s.exporting)
  const verifying = useStore(ws.verifyJob, (s) => s.status !== null)
  const file = path.split(/[\\/]/).pop() ?? path
  return (
    <header className="topbar">
      {/* The page's one top-level heading (WCAG 2.4.6; axe's page-has-heading-one). */}
      <h1 className="brand">
        <span className="logo" aria-hidden>
          ◆
        </span>
        BIJOTEL Auditor
      </h1>
      <div className="current-file" title={path} data-testid="current-file">
        {file}
      </div>
      {openControls}
      <div className="grow" />
      <button
        type="button"
        className="btn"
        onClick={() => void ws.verify()}
        disabled={verifying}
        title="Ctrl/⌘+Shift+V"
      >
        Verify
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => void ws.exportReport()}
        disabled={exporting}
        data-testid="export-report"
        title="Ctrl/⌘+E"
      >
        {hasDialogs ? 'Save report…' : 'Export report'}
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => void ws.exportReport('html')}
        disabled={exporting}
        data-testid="export-html"
        title="the same report as one self-contained, printable page (the JSON embedded)"
      >
        {hasDialogs ? 'Save as HTML…' : 'Export as HTML'}
      </button>
      {hasDialogs ? (
        <button
          type="button"
          className="btn"
          onClick={() => void ws.exportReport('pdf')}
          disabled={exporting}
          data-testid="export-pdf"
          title="the HTML report printed to PDF"
        >
          Print to PDF…
        </button>
      ) : null}
      <button
        type="button"
        className="btn"
        onClick={() => void ws.copyReport()}
        disabled={exporting}
        data-testid="copy-report"
        title="Ctrl/⌘+Shift+E"
      >
        Copy as JSON
      </button>
    </header>
  )
}
