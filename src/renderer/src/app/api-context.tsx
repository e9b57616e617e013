// The ApiClient the components use, and where main → renderer events come from, provided once at
// the top (tests pass a fake of either).
import { createContext, useContext, type ReactNode } from 'react'
import type { ApiClient } from '../../../shared/contract'
import { subscribeAppEvents, type SubscribeAppEvents } from '../lib/bridge'

const ApiContext = createContext<ApiClient | null>(null)
const EventsContext = createContext<SubscribeAppEvents>(subscribeAppEvents)

export function ApiProvider({
  api,
  events,
  children,
}: {
  api: ApiClient
  /** Default: the preload's channel (desktop) or the server's event stream (web). */
  events?: SubscribeAppEvents
  children: ReactNode
}) {
  const inner = <ApiContext.Provider value={api}>{children}</ApiContext.Provider>
  return events ? <EventsContext.Provider value={events}>{inner}</EventsContext.Provider> : inner
}

export function useApi(): ApiClient {
  const api = useContext(ApiContext)
  if (!api) throw new Error('no API client: wrap the app in <ApiProvider>')
  return api
}

export function useAppEventSource(): SubscribeAppEvents {
  return useContext(EventsContext)
}
