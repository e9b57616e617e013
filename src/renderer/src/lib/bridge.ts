// What the Electron preload adds to window (absent in web mode), and the renderer's one way to
// receive main → renderer events (src/shared/app-events.ts): the preload's channel in the desktop
// app, the server's event stream (`GET /api/events`, Server-Sent Events) in web mode. Typed
// locally, without a global augmentation, so it cannot clash with the API module's declarations.
import { APP_EVENTS, APP_EVENTS_PATH, type AppEvent, type AppEventHandlers } from '../../../shared/app-events'
import type { ApiClient } from '../../../shared/contract'

export interface BijotelBridge {
  api: ApiClient
  pathForFile?: (file: File) => string
  onEvent?: (listener: (event: AppEvent) => void) => () => void
}

export type AppEventListener = (event: AppEvent) => void
export type SubscribeAppEvents = (listener: AppEventListener) => () => void

export function bridge(): BijotelBridge | null {
  if (typeof window === 'undefined') return null
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

/** Call the handler of an event: the table has one for every name (AppEventHandlers). */
export function handleAppEvent(handlers: AppEventHandlers, event: AppEvent): void {
  ;(handlers[event.name] as (payload: AppEvent['payload']) => void)(event.payload)
}

/**
 * Web mode's events: one EventSource on the server's stream, a listener per event name. It
 * reconnects by itself (the stream says `retry: 1000`) and starts again with the chain held.
 */
export function subscribeServerEvents(
  listener: AppEventListener,
  ES: typeof EventSource | undefined = typeof EventSource === 'undefined' ? undefined : EventSource,
  baseUrl = '',
): () => void {
  if (!ES) return () => undefined
  const es = new ES(`${baseUrl.replace(/\/+$/, '')}${APP_EVENTS_PATH}`)
  for (const name of APP_EVENTS) {
    es.addEventListener(name, ((ev: MessageEvent<string>) => {
      let payload: unknown
      try {
        payload = JSON.parse(ev.data) as unknown
      } catch {
        return
      }
      listener({ name, payload } as AppEvent)
    }) as EventListener)
  }
  return () => es.close()
}

/** Every main → renderer event, by whichever transport this page has. */
export const subscribeAppEvents: SubscribeAppEvents = (listener) => {
  const b = bridge()
  if (b?.api) return b.onEvent ? b.onEvent(listener) : () => undefined
  return subscribeServerEvents(listener)
}
