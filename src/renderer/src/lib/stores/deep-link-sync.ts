// Writes what the window shows into the page's URL (web mode): the chain, the selected seq and the
// filters (deep-link.ts), with history.replaceState, as the auditor works — so the address bar is
// always a link to the finding on screen. Nothing is written while a link read on load is still
// waiting for its chain, so the link is not overwritten before it is applied.
import { formatLink, linkOf } from '../deep-link'
import type { AppStore } from './app-store'
import type { WorkspaceStore } from './workspace-store'

export interface LinkTarget {
  read: () => string
  write: (hash: string) => void
}

/** The page's own URL hash. */
export function browserTarget(): LinkTarget {
  return {
    read: () => window.location.hash,
    write: (hash) =>
      window.history.replaceState(
        window.history.state,
        '',
        hash === '' ? window.location.pathname + window.location.search : hash,
      ),
  }
}

export class DeepLinkSync {
  private watched: WorkspaceStore | null = null
  private unwatch: (() => void) | null = null

  constructor(
    private readonly app: AppStore,
    private readonly target: LinkTarget,
  ) {}

  /** Follow the app store (and the workspace shown); returns the function that stops. */
  start(): () => void {
    const off = this.app.subscribe(this.onChange)
    this.onChange()
    return () => {
      off()
      this.unwatch?.()
    }
  }

  private readonly onChange = (): void => {
    const ws = this.app.getState().workspace
    if (ws !== this.watched) {
      this.unwatch?.()
      this.watched = ws
      this.unwatch = ws ? ws.subscribe(this.write) : null
    }
    this.write()
  }

  private readonly write = (): void => {
    const { info, chain, workspace, linkPending } = this.app.getState()
    if (info?.transport !== 'http' || linkPending) return
    const ws = workspace?.getState() ?? null
    const hash = formatLink(linkOf(chain?.path ?? null, ws?.selected?.seq ?? null, ws?.view ?? null))
    if (hash !== this.target.read()) this.target.write(hash)
  }
}
