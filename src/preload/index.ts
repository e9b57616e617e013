// The sandboxed preload: exposes the API contract and its events, and nothing else, to the renderer.
// Calls go over IPC_CHANNEL (invoke), events come on APP_EVENT_CHANNEL (one channel for all).
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { APP_EVENT_CHANNEL } from '../shared/app-events'
import { IPC_CHANNEL } from '../shared/contract'
import { createBridge, type Reply } from './bridge'

const bridge = createBridge({
  invoke: (name, req) => ipcRenderer.invoke(IPC_CHANNEL, name, req) as Promise<Reply>,
  listen: (listener) => {
    const handler = (_e: IpcRendererEvent, message: unknown): void => listener(message)
    ipcRenderer.on(APP_EVENT_CHANNEL, handler)
    return () => {
      ipcRenderer.removeListener(APP_EVENT_CHANNEL, handler)
    }
  },
  /** Paths of dropped files: the sandboxed renderer cannot see them otherwise. */
  pathForFile: (file) => webUtils.getPathForFile(file),
})

contextBridge.exposeInMainWorld('bijotel', bridge)
