// The workspace store of the chain on screen, for the components inside Workspace.
import { createContext, useContext } from 'react'
import type { WorkspaceState, WorkspaceStore } from '../../lib/stores/workspace-store'
import { useStore } from '../../lib/stores/store'

export const WorkspaceContext = createContext<WorkspaceStore | null>(null)

export function useWorkspaceStore(): WorkspaceStore {
  const ws = useContext(WorkspaceContext)
  if (!ws) throw new Error('no workspace store: render inside <Workspace>')
  return ws
}

/** One field (or a value the state already holds) of the workspace's state. */
export function useWorkspace<T>(select: (s: WorkspaceState) => T): T {
  return useStore(useWorkspaceStore(), select)
}
