// The ApiClient the components use, provided once at the top (tests pass a fake).
import { createContext, useContext, type ReactNode } from 'react'
import type { ApiClient } from '../../../shared/contract'

const ApiContext = createContext<ApiClient | null>(null)

export function ApiProvider({ api, children }: { api: ApiClient; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>
}

export function useApi(): ApiClient {
  const api = useContext(ApiContext)
  if (!api) throw new Error('no API client: wrap the app in <ApiProvider>')
  return api
}
