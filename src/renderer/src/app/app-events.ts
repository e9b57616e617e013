// The renderer's handler of every main → renderer event. Its type, AppEventHandlers, has a member
// for each name of the event map, so an event added to src/shared/app-events.ts without a handler
// here does not compile.
import type { AppEventHandlers } from '../../../shared/app-events'
import type { AppStore } from '../lib/stores/app-store'

export interface WindowActions {
  /** Web mode's File → Open: the path box takes the keyboard. */
  focusPathBox: () => void
}

export function appEventHandlers(store: AppStore, ui: WindowActions): AppEventHandlers {
  const workspace = () => store.getState().workspace
  return {
    chainChanged: ({ chain }) => store.chainChanged(chain),
    keysChanged: ({ keys }) => workspace()?.keysHeld(keys),
    priorChanged: ({ prior }) => store.priorChanged(prior),
    openFailed: ({ path, message }) => store.openFailed(path, message),
    reportSigned: ({ fingerprint }) => store.notify(`report signed with key ${fingerprint}`),
    menuOpen: () => store.openCommand(ui.focusPathBox),
    menuClose: () => void store.close(),
    menuExport: () => void workspace()?.exportReport(),
    menuCopyReport: () => void workspace()?.copyReport(),
    menuVerify: () => void workspace()?.verify(),
    menuIntegrity: () => workspace()?.rerunIntegrity(),
  }
}
