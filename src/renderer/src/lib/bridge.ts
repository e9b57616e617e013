// What the Electron preload adds to window (absent in web mode). Typed locally, without a global
// augmentation, so it cannot clash with the API module's own declarations.
import type { ApiClient } from '../../../shared/contract'

export interface BijotelBridge {
  api: ApiClient
  pathForFile?: (file: File) => string
  onMenu?: (listener: (command: string) => void) => () => void
}

export function bridge(): BijotelBridge | null {
  const b = (window as unknown as { bijotel?: BijotelBridge }).bijotel
  return b && typeof b === 'object' ? b : null
}

/** The file's path on disk (Electron only); null in a browser or when it has none. */
export function pathOfDroppedFile(file: File): string | null {
  const f = bridge()?.pathForFile
  if (!f) return null
  try {
    const p = f(file)
    return p ? p : null
  } catch {
    return null
  }
}

export type MenuCommand = 'open' | 'export' | 'verify' | 'copy-report'

export function onMenu(listener: (c: MenuCommand) => void): () => void {
  const sub = bridge()?.onMenu
  if (!sub) return () => undefined
  return sub((c) => {
    if (c === 'open' || c === 'export' || c === 'verify' || c === 'copy-report') listener(c)
  })
}
