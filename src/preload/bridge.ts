// What the preload exposes to the renderer as `window.bijotel`, built from two transport functions
// so that it holds no Electron: the preload (index.ts) gives it ipcRenderer's, the shell tests give
// it HTTP ones. The API is generated from API_CALLS; events are accepted only by the names of
// APP_EVENTS, so a message on the channel that is not an event of the contract never reaches the page.
import { APP_EVENTS, type AppEvent } from '../shared/app-events'
import { API_CALLS, type ApiClient, type ApiErrorBody } from '../shared/contract'

export type Reply = { ok: true; value: unknown } | { ok: false; error: ApiErrorBody }

export interface BridgeTransport {
  /** One contract call: IPC_CHANNEL's `invoke(name, req)`. */
  invoke: (name: string, req: unknown) => Promise<Reply>
  /** Listen to APP_EVENT_CHANNEL; returns the unsubscribe function. */
  listen: (listener: (message: unknown) => void) => () => void
  /** Paths of dropped files (Electron's webUtils.getPathForFile). */
  pathForFile: (file: File) => string
}

export interface Bridge {
  api: ApiClient
  pathForFile: (file: File) => string
  /** Every main → renderer event, validated by name. Returns the unsubscribe function. */
  onEvent: (listener: (event: AppEvent) => void) => () => void
}

const EVENT_NAMES: ReadonlySet<string> = new Set(APP_EVENTS)

/** A message from the channel as an event of the contract, or null when it is not one. */
export function asAppEvent(message: unknown): AppEvent | null {
  if (typeof message !== 'object' || message === null) return null
  const m = message as { name?: unknown; payload?: unknown }
  if (typeof m.name !== 'string' || !EVENT_NAMES.has(m.name)) return null
  return { name: m.name, payload: m.payload ?? null } as AppEvent
}

export function createBridge(t: BridgeTransport): Bridge {
  const api = Object.fromEntries(
    API_CALLS.map((name) => [
      name,
      async (req: unknown) => {
        const reply = await t.invoke(name, req)
        if (reply.ok) return reply.value
        const err = new Error(reply.error.error) as Error & { code?: string }
        err.code = reply.error.code
        throw err
      },
    ]),
  ) as unknown as ApiClient
  return {
    api,
    pathForFile: (file) => t.pathForFile(file),
    onEvent: (listener) =>
      t.listen((message) => {
        const ev = asAppEvent(message)
        if (ev) listener(ev)
      }),
  }
}
