// Everything about one opened chain, shown from its store (WorkspaceStore: one per chain identity,
// made by the app store). The components below read the store through useWorkspace, and every call
// they make goes through the store's chain-bound API (provided as the API of this subtree), so an
// answer for a chain the engine no longer holds is never shown.
import { useCallback, useRef, type ReactNode } from 'react'
import { Splitter } from '../components/layout/Splitter'
import type { AppInfo } from '../../../shared/contract'
import type { WorkspaceStore } from '../lib/stores/workspace-store'
import { ApiProvider } from './api-context'
import { ChainViews, EntriesView } from './workspace/ChainViews'
import { WorkspaceContext } from './workspace/context'
import { DetailPane } from './workspace/DetailPane'
import { Sidebar } from './workspace/Sidebar'
import { StatusBar } from './workspace/StatusBar'
import { Topbar } from './workspace/Topbar'
import { useFlags } from './workspace/use-flags'

interface Props {
  store: WorkspaceStore
  info: AppInfo
  /** The header's open controls, rendered by App. */
  header: ReactNode
  /** A message line under the header (e.g. why a file could not be opened). */
  banner?: ReactNode
}

/** The skip link's target: the entries table itself (its grid takes the keyboard). */
function focusTable(): void {
  document.querySelector<HTMLElement>('[data-testid="entries-list"]')?.focus()
}

export function Workspace({ store, info, header, banner }: Props) {
  const layout = useRef<HTMLDivElement | null>(null)
  const getLayout = useCallback(() => layout.current, [])
  return (
    <WorkspaceContext.Provider value={store}>
      <ApiProvider api={store.api}>
        <div className="app" data-testid="workspace" data-open-id={store.chain.open_id}>
          <a
            href="#entries"
            className="skip-link"
            onClick={(e) => {
              e.preventDefault()
              focusTable()
            }}
            data-testid="skip-link"
          >
            Skip to the entries table
          </a>
          <Topbar hasDialogs={info.has_dialogs} openControls={header} />
          {banner}
          <div className="layout" ref={layout}>
            <Sidebar />
            <Splitter
              cssVar="--sidebar-w"
              target={getLayout}
              label="resize the sidebar"
              initial={() => Math.round(Math.min(380, Math.max(280, window.innerWidth * 0.26)))}
              min={260}
              max={640}
              direction={1}
              storageKey="bijotel.sidebar-w"
              testId="splitter-sidebar"
            />
            <Main />
          </div>
          <StatusBar />
        </div>
      </ApiProvider>
    </WorkspaceContext.Provider>
  )
}

function Main() {
  const flags = useFlags()
  const split = useRef<HTMLDivElement | null>(null)
  const getSplit = useCallback(() => split.current, [])
  return (
    <main className="main" id="entries">
      <div className="main-views">
        <ChainViews flags={flags} />
      </div>
      <div className="split" ref={split}>
        <EntriesView flags={flags} />
        <Splitter
          cssVar="--detail-w"
          target={getSplit}
          label="resize the entry panel"
          initial={() => Math.round(Math.min(600, Math.max(300, window.innerWidth * 0.3)))}
          min={260}
          max={900}
          direction={-1}
          storageKey="bijotel.detail-w"
          testId="splitter-detail"
        />
        <DetailPane flags={flags} />
      </div>
    </main>
  )
}
