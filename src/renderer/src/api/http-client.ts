// The web transport of the API contract: every call is `POST /api/call/<name>` with the request as
// JSON (generated from API_CALLS, like the preload). The page served by `bijotel serve` carries a
// per-start app token in `<meta name="bijotel-app-token">`; it is sent back on every call so the
// server can tell its own page (the only web caller allowed to set secrets) from other clients.
import { API_CALLS, type ApiClient, type ApiErrorBody } from '../../../shared/contract'
import type { JobStatus } from '../../../shared/job-types'
import { isApiErrorCode } from '../../../shared/api-errors'

export const APP_TOKEN_META = 'bijotel-app-token'
export const APP_TOKEN_HEADER = 'X-Bijotel-App-Token'

/** What a failed call throws: the server's one-line message, its code, and the HTTP status. */
export class ApiCallError extends Error {
  readonly code: ApiErrorBody['code']
  readonly status: number
  constructor(message: string, code: ApiErrorBody['code'], status: number) {
    super(message)
    this.name = 'ApiCallError'
    this.code = code
    this.status = status
  }
}

export interface HttpClientOptions {
  /** Server origin (default: the page's own, i.e. relative URLs). */
  baseUrl?: string
  /** Default: read from the page's meta tag. */
  appToken?: string | null
  /** For scripts and tests against a server started with an API key. */
  apiKey?: string
  fetch?: typeof fetch
}

export function readAppToken(
  doc: Pick<Document, 'querySelector'> | undefined = typeof document === 'undefined' ? undefined : document,
): string | null {
  const v = doc?.querySelector(`meta[name="${APP_TOKEN_META}"]`)?.getAttribute('content')
  return v ? v : null
}

function base(url: string | undefined): string {
  return (url ?? '').replace(/\/+$/, '')
}

async function errorOf(res: Response): Promise<ApiCallError> {
  let body: unknown = null
  try {
    body = await res.json()
  } catch {
    // not JSON (a proxy, a crash): fall through
  }
  const o = (body ?? {}) as Partial<ApiErrorBody>
  const code = isApiErrorCode(o.code) ? o.code : res.status === 404 ? 'not_found' : 'internal'
  const message = typeof o.error === 'string' && o.error ? o.error : `HTTP ${res.status}`
  return new ApiCallError(message, code, res.status)
}

function headersFor(opts: HttpClientOptions, token: string | null): Record<string, string> {
  const h: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' }
  if (token) h[APP_TOKEN_HEADER] = token
  if (opts.apiKey) h['Authorization'] = `Bearer ${opts.apiKey}`
  return h
}

export function createHttpClient(opts: HttpClientOptions = {}): ApiClient {
  const doFetch = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a))
  const root = base(opts.baseUrl)
  const token = opts.appToken !== undefined ? opts.appToken : readAppToken()
  const call = async (name: string, req: unknown): Promise<unknown> => {
    let res: Response
    try {
      res = await doFetch(`${root}/api/call/${name}`, {
        method: 'POST',
        headers: headersFor(opts, token),
        body: req === undefined ? '{}' : JSON.stringify(req),
        credentials: 'same-origin',
      })
    } catch (e) {
      throw new ApiCallError(
        `cannot reach the server: ${e instanceof Error ? e.message : String(e)}`,
        'unavailable',
        0,
      )
    }
    if (!res.ok) throw await errorOf(res)
    return res.json() as Promise<unknown>
  }
  return Object.fromEntries(
    API_CALLS.map((name) => [name, (req: unknown) => call(name, req)]),
  ) as unknown as ApiClient
}

export interface SubscribeOptions {
  baseUrl?: string
  /** Polling fallback (and the IPC transport) use this client's jobStatus. */
  client?: Pick<ApiClient, 'jobStatus'>
  intervalMs?: number
  /** Default: the global EventSource, when there is one. Pass null to force polling. */
  EventSource?: typeof EventSource | null
  onError?: (e: Error) => void
}

/**
 * Follow a job until it ends: `onStatus` gets every status, the final one last (state ≠ running).
 * Uses Server-Sent Events (`GET /api/jobs/<id>/events`) when available, else polls jobStatus.
 * Returns a function that stops following (it does not cancel the job: call cancelJob for that).
 */
export function subscribeJob(
  id: string,
  onStatus: (s: JobStatus) => void,
  opts: SubscribeOptions = {},
): () => void {
  let stopped = false
  let es: EventSource | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  const stop = (): void => {
    stopped = true
    es?.close()
    es = null
    if (timer !== null) clearTimeout(timer)
    timer = null
  }
  const deliver = (s: JobStatus): void => {
    if (stopped) return
    onStatus(s)
    if (s.state !== 'running') stop()
  }
  const client = opts.client ?? createHttpClient(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {})
  let failures = 0
  const poll = async (): Promise<void> => {
    if (stopped) return
    try {
      deliver(await client.jobStatus({ id }))
      failures = 0
    } catch (e) {
      failures++
      opts.onError?.(e instanceof Error ? e : new Error(String(e)))
      if (failures >= 5 || (e instanceof ApiCallError && e.code === 'not_found')) {
        stop()
        return
      }
    }
    if (!stopped) timer = setTimeout(() => void poll(), opts.intervalMs ?? 250)
  }
  const ES =
    opts.EventSource === undefined
      ? typeof EventSource === 'undefined'
        ? null
        : EventSource
      : opts.EventSource
  if (!ES) {
    void poll()
    return stop
  }
  es = new ES(`${base(opts.baseUrl)}/api/jobs/${encodeURIComponent(id)}/events`)
  const onMessage = (ev: MessageEvent<string>): void => {
    try {
      deliver(JSON.parse(ev.data) as JobStatus)
    } catch (e) {
      opts.onError?.(e instanceof Error ? e : new Error(String(e)))
    }
  }
  es.addEventListener('progress', onMessage as EventListener)
  es.addEventListener('done', onMessage as EventListener)
  es.onerror = () => {
    if (stopped) return
    // Refused (e.g. 401/404) or the stream broke: poll instead; polling reports the end.
    es?.close()
    es = null
    void poll()
  }
  return stop
}
