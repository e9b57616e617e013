// Everything about one opened chain, shown from its store (WorkspaceStore: one per chain identity,
// made by the app store). The components below read the store through useWorkspace, and every call
// they make goes through the store's chain-bound API (provided as the API of this subtree), so an
// answer for a chain the engine no longer holds is never shown.
import type { ReactNode } from 'react'
import type { AppInfo } from '../../../shared/contract'
import type { WorkspaceStore } from '../lib/stores/workspace-store'
import { ApiProvider } from './api-context'
import { ChainViews, EntriesView } from './workspace/ChainViews'
import { WorkspaceContext } from './workspace/context'
import { DetailPane } from './workspace/DetailPane'
import { Sidebar } from './workspace/Sidebar'
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

export function Workspace({ store, info, header, banner }: Props) {
  return (
    <WorkspaceContext.Provider value={store}>
      <ApiProvider api={store.api}>
        <div className="app" data-testid="workspace" data-open-id={store.chain.open_id}>
          <Topbar hasDialogs={info.has_dialogs} openControls={header} />
          {banner}
          <div className="layout">
            <Sidebar />
            <Main />
          </div>
        </div>
      </ApiProvider>
    </WorkspaceContext.Provider>
  )
}

function Main() {
  const flags = useFlags()
  return (
    <main className="main">
      <ChainViews flags={flags} />
      <div className="split">
        <EntriesView flags={flags} />
        <DetailPane flags={flags} />
      </div>
    </main>
  )
}
