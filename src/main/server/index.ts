// `bijotel serve`'s HTTP server (node:http, no framework): the API contract at /api/call/<name>,
// job progress and the app's events (/api/events) over SSE, the reference-compatible REST routes,
// and the built renderer at `/`.
// See docs/server.md for routes, auth, the secrets policy and limits.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { APP_EVENTS_PATH } from '../../shared/app-events'
import { AuditError, oneLine } from '../base/errors'
import { custodyOf, onReportSigned } from '../session/custody-state'
import type { AuditSession } from '../session/session'
import { createHandlers, type CallContext, type HandlerTable } from '../handlers/table'
import {
  allowedHosts,
  checkFetchSite,
  checkHost,
  checkOrigin,
  isLoopbackHost,
  isTrustedApp,
  MIN_API_KEY_LENGTH,
  newAppToken,
  requireBearer,
} from './auth'
import { CALL_PREFIX, handleCall } from './calls'
import { streamAppEvents, streamJob, type EventStreams } from './events'
import { errorBody } from '../handlers/dispatch'
import { discardRest, hasBody, HttpError, sendError, STATUS_OF } from './http'
import {
  admitBody,
  admitStream,
  ByteBudget,
  ConnectionGate,
  gateHeavyCalls,
  guardBodyRate,
  httpOptions,
  resolveLimits,
  tooSlow,
  WorkGate,
  type ServerLimits,
} from './limits'
import {
  chainEntry,
  chainList,
  chainVerify,
  health,
  integrity,
  replayVerify,
  version,
  type RefDeps,
} from './reference'
import { StaticSite } from './static'
import { replayVerifyBatch } from './replay-batch'

export interface ServerOptions {
  session: AuditSession
  /** Default 127.0.0.1. Anything but loopback requires `apiKey`. */
  host?: string
  /** Default 8080; 0 picks a free port. */
  port?: number
  /** Bearer key required on every route but /health and /version (min. 16 characters). */
  apiKey?: string
  /** The built renderer (out/renderer); without it only the API is served. */
  staticDir?: string
  /** Folders whose chains a client may open by path (added to the session's). */
  openRoots?: string[]
  /** What one client may take (connections, body bytes, timeouts, streams); defaults in limits.ts. */
  limits?: Partial<ServerLimits>
  /** The server's log (stderr): every report signed with the auditor's key is written here. */
  log?: (line: string) => void
}

export interface RunningServer {
  url: string
  port: number
  host: string
  close(): Promise<void>
}

/** Listening failed (port in use, address not available…): `bijotel serve` exits 3. */
export class ListenError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.name = 'ListenError'
    this.code = code
  }
}

const PUBLIC_PATHS = new Set(['/health', '/version', '/api/health', '/api/version'])
const JOB_EVENTS = /^\/api\/jobs\/([A-Za-z0-9-]{1,100})\/events$/
const CHAIN_ENTRY = /^\/chain\/([^/]+)$/

interface Context {
  session: AuditSession
  table: HandlerTable
  apiKey: string | null
  loopback: boolean
  appToken: string
  hosts: Set<string> | null
  site: StaticSite | null
  streams: EventStreams
  limits: ServerLimits
  work: WorkGate
}

/** Paths that are the API (the contract, events, the reference routes) rather than the app's page. */
function isApiPath(path: string): boolean {
  return (
    PUBLIC_PATHS.has(path) ||
    path === '/api' ||
    path.startsWith('/api/') ||
    path === '/integrity' ||
    path.startsWith('/replay/') ||
    path === '/chain' ||
    path.startsWith('/chain/')
  )
}

async function route(c: Context, req: IncomingMessage, res: ServerResponse): Promise<void> {
  checkHost(req, c.hosts)
  const url = new URL(req.url ?? '/', 'http://server.invalid')
  const path = url.pathname
  const method = req.method ?? 'GET'
  // Before any route (the public ones, the refusals and OPTIONS included): a browser's request from
  // another site, or with a foreign Origin, is answered by this refusal alone.
  checkFetchSite(req, (method === 'GET' || method === 'HEAD') && !isApiPath(path))
  checkOrigin(req)
  const deps: RefDeps = { session: c.session, table: c.table }

  if (PUBLIC_PATHS.has(path)) {
    if (method !== 'GET' && method !== 'HEAD')
      throw new HttpError(405, 'bad_request', `use GET for ${path}`, { Allow: 'GET, HEAD' })
    if (path.endsWith('/version')) return version(res)
    let authorized = c.apiKey === null
    if (!authorized) {
      try {
        requireBearer(req, c.apiKey!)
        authorized = true
      } catch {
        authorized = false
      }
    }
    return health(deps, res, authorized)
  }

  if (c.apiKey !== null) requireBearer(req, c.apiKey)
  // Every request reaching this point carried the API key when the server has one (above): only
  // then may a report be signed with the auditor's key (issue 34). The app token is not enough.
  const ctx: CallContext = {
    transport: 'http',
    trusted: isTrustedApp(req, c.appToken, c.loopback),
    apiKey: c.apiKey !== null,
  }

  if (path.startsWith(CALL_PREFIX)) return handleCall(c.table, path.slice(CALL_PREFIX.length), req, res, ctx)
  if (path === APP_EVENTS_PATH) {
    admitStream(c.streams.open.size, c.limits)
    return streamAppEvents(c.session, req, res, c.streams)
  }
  const job = JOB_EVENTS.exec(path)
  if (job) {
    admitStream(c.streams.open.size, c.limits)
    return streamJob(c.session.jobs, job[1]!, req, res, c.streams)
  }
  if (path === '/integrity') return c.work.run(() => integrity(deps, req, res, url))
  if (path === '/replay/verify') return replayVerify(deps, req, res, ctx)
  if (path === '/replay/verify-batch') return c.work.run(() => replayVerifyBatch(c.session, req, res))
  if (path === '/chain') return chainList(deps, req, res, url)
  if (path === '/chain/verify') return chainVerify(deps, req, res, ctx)
  const entry = CHAIN_ENTRY.exec(path)
  if (entry) return chainEntry(deps, req, res, entry[1]!)
  if (path === '/api' || path.startsWith('/api/'))
    throw new HttpError(404, 'not_found', `no route ${method} ${path.slice(0, 200)}`)

  if ((method === 'GET' || method === 'HEAD') && c.site && (await c.site.serve(req, res, path))) return
  throw new HttpError(404, 'not_found', `no route ${method} ${path.slice(0, 200)}`)
}

/** Whether `route` would get past its Host and API-key checks for `req` (no reply is written). */
function admitted(c: Context, req: IncomingMessage): boolean {
  try {
    checkHost(req, c.hosts)
    checkFetchSite(req, false)
    checkOrigin(req)
    if (c.apiKey !== null) requireBearer(req, c.apiKey)
    return true
  } catch {
    return false
  }
}

function fail(req: IncomingMessage, res: ServerResponse, e: unknown): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  if (e instanceof HttpError) {
    sendError(res, e.status, e.code, e.message, e.headers)
    if (e.status === 413) discardRest(req)
    else if (!req.complete) discardRest(req)
    return
  }
  // An engine error outside a handler (the long-work gate on /integrity): its own status.
  const b = errorBody(e)
  sendError(res, STATUS_OF[b.code], b.code, b.error)
  if (!req.complete) discardRest(req)
}

/** The raw reply to a request node:http could not take (timeouts: lib/_http_server.js onRequestTimeout). */
function clientErrorReply(code: string | undefined): string {
  const [status, message] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['408 Request Timeout', 'request timeout: the request line and headers, or the body, came too slowly']
      : code === 'HPE_HEADER_OVERFLOW'
        ? ['431 Request Header Fields Too Large', 'request headers too large']
        : ['400 Bad Request', 'bad request']
  const body = JSON.stringify({ error: message, code: 'bad_request' })
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1'
  const port = opts.port ?? 8080
  const apiKey = opts.apiKey ? opts.apiKey : null
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new AuditError('bad_argument', `port must be 0..65535, got ${port}`)
  if (apiKey !== null && apiKey.length < MIN_API_KEY_LENGTH) {
    throw new AuditError('bad_argument', `the API key must be at least ${MIN_API_KEY_LENGTH} characters`)
  }
  const loopback = isLoopbackHost(host)
  if (!loopback && apiKey === null) {
    throw new AuditError(
      'bad_argument',
      `refusing to listen on ${host} without an API key: anyone who can reach it could read the chain (set --api-key or BIJOTEL_API_KEY, or keep the default 127.0.0.1)`,
    )
  }
  const session = opts.session
  const signing = custodyOf(session).signing
  if (signing && apiKey === null)
    throw new AuditError(
      'bad_argument',
      'a signing key needs an API key (--api-key-file): without one, any local client could have reports signed with it',
    )
  if (opts.openRoots?.length) {
    const roots = session.options.openRoots ?? []
    for (const r of opts.openRoots) if (!roots.includes(r)) roots.push(r)
    session.options.openRoots = roots
  }
  const limits = resolveLimits(opts.limits)
  const appToken = newAppToken()
  const work = new WorkGate(limits.maxHeavyWork, () => session.jobs.running())
  const c: Context = {
    session,
    table: gateHeavyCalls(createHandlers(session), work),
    apiKey,
    loopback,
    appToken,
    hosts: null,
    site: opts.staticDir ? new StaticSite(opts.staticDir, appToken) : null,
    streams: { open: new Set() },
    limits,
    work,
  }

  const budget = new ByteBudget(limits.maxBodyBytesInFlight)
  const server: Server = createServer(httpOptions(limits), (req, res) => {
    if (gate.isRefused(req.socket)) {
      // Already answered 503 and closing: read nothing more from it.
      req.resume()
      return
    }
    admitBody(req, res, budget)
    guardBodyRate(req, limits, (received, elapsed) => {
      // Already answered (a GET, a refusal being drained): the response has left the socket.
      if (res.headersSent) req.socket.destroy()
      else fail(req, res, tooSlow(limits, received, elapsed))
    })
    // No GET route reads a body: drain one as it comes, so its pace is the client's alone. (Only
    // when there is one: a drained request emits 'close', which ends an event stream.)
    if ((req.method === 'GET' || req.method === 'HEAD') && hasBody(req)) req.resume()
    route(c, req, res).catch((e: unknown) => fail(req, res, e))
  })
  const gate = new ConnectionGate(server, limits.maxConnections)
  // RFC 9110 §10.1.1: a client sending `Expect: 100-continue` waits for the interim reply before it
  // sends the body. node:http writes "100 Continue" itself, before any handler has looked at the
  // request — to a client without the API key as well, asking it for a body no route will take. The
  // interim reply goes only to a request that would be admitted (its Host, and the key when the
  // server has one); any other gets its refusal as the only reply.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (admitted(c, req)) res.writeContinue()
    server.emit('request', req, res)
  })
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(clientErrorReply(err.code))
    else socket.destroy()
  })

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      server.off('listening', onListening)
      const why =
        e.code === 'EADDRINUSE'
          ? 'address already in use'
          : e.code === 'EACCES'
            ? 'permission denied'
            : oneLine(e)
      reject(
        new ListenError(
          e.code ?? 'listen',
          `cannot listen on ${host}:${port}: ${why}${e.code && !why.includes(e.code) ? ` (${e.code})` : ''}`,
        ),
      )
    }
    const onListening = (): void => {
      server.off('error', onError)
      resolve()
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, host)
  })
  const addr = server.address() as AddressInfo
  if (loopback && !isLoopbackHost(addr.address)) {
    server.close()
    throw new AuditError(
      'bad_argument',
      `${host} resolved to ${addr.address}, which is not a loopback address: set an API key to listen there`,
    )
  }
  c.hosts = loopback ? allowedHosts(addr.address, addr.port) : null
  const log = opts.log ?? ((line: string) => void process.stderr.write(line))
  const stopSigned = onReportSigned(session, (signed) =>
    log(`report signed with key ${signed.fingerprint} (${signed.generated_at})\n`),
  )
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  let closing: Promise<void> | null = null
  return {
    url: `http://${urlHost}:${addr.port}/`,
    port: addr.port,
    host: addr.address,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        stopSigned()
        for (const end of [...c.streams.open]) end()
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}
