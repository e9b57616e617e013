// The one ApiClient the UI uses: the Electron preload's (`window.bijotel.api`, over IPC) when the
// page runs in the desktop app, else the HTTP client of `bijotel serve`'s web mode.
import type { ApiClient } from '../../../shared/contract'
import type { JobStatus } from '../../../shared/job-types'
import { createHttpClient, subscribeJob as subscribeHttp, type SubscribeOptions } from './http-client'

export {
  ApiCallError,
  createHttpClient,
  readAppToken,
  type HttpClientOptions,
  type SubscribeOptions,
} from './http-client'

export type Transport = 'ipc' | 'http'

function preloadApi(): ApiClient | null {
  if (typeof window === 'undefined') return null
  const b = (window as unknown as { bijotel?: { api?: ApiClient } }).bijotel
  return b && typeof b === 'object' && b.api ? b.api : null
}

const ipc = preloadApi()

export const transport: Transport = ipc ? 'ipc' : 'http'

export const api: ApiClient = ipc ?? createHttpClient()

/**
 * Follow a job until it ends (see http-client's subscribeJob): Server-Sent Events in web mode,
 * polling jobStatus over IPC. Returns an unsubscribe function.
 */
export function subscribeJob(
  id: string,
  onStatus: (s: JobStatus) => void,
  opts: SubscribeOptions = {},
): () => void {
  if (transport === 'ipc')
    return subscribeHttp(id, onStatus, { ...opts, client: opts.client ?? api, EventSource: null })
  return subscribeHttp(id, onStatus, { ...opts, client: opts.client ?? api })
}
