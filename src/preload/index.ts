// The sandboxed preload: exposes the API contract, and nothing else, to the renderer.
import { contextBridge, ipcRenderer, webUtils } from 'electron'
import { API_CALLS, IPC_CHANNEL, type ApiClient, type ApiErrorBody } from '../shared/contract'

type Reply = { ok: true; value: unknown } | { ok: false; error: ApiErrorBody }

const api = Object.fromEntries(
  API_CALLS.map((name) => [
    name,
    async (req: unknown) => {
      const reply = (await ipcRenderer.invoke(IPC_CHANNEL, name, req)) as Reply
      if (reply.ok) return reply.value
      const err = new Error(reply.error.error) as Error & { code?: string }
      err.code = reply.error.code
      throw err
    },
  ]),
) as unknown as ApiClient

contextBridge.exposeInMainWorld('bijotel', {
  api,
  /** Paths of dropped files: the sandboxed renderer cannot see them otherwise. */
  pathForFile: (file: File): string => webUtils.getPathForFile(file),
  /** Menu commands (open, export, …) sent by the main process. */
  onMenu: (listener: (command: string) => void): (() => void) => {
    const handler = (_e: unknown, command: string): void => listener(command)
    ipcRenderer.on('bijotel:menu', handler)
    return () => ipcRenderer.removeListener('bijotel:menu', handler)
  },
})
