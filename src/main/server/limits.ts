// What one local client may take from `bijotel serve`, so no client can exhaust it: open
// connections, request-body bytes held at once, time to send headers and bodies (proportionate to
// the size allowed: a grace period, then a minimum rate), idle keep-alive time, open event streams,
// long work at once. Values and what a client sees beyond each: docs/server.md ("Limits").
import type { IncomingMessage, ServerOptions as HttpServerOptions, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { AuditError } from '../base/errors'
import { API_CALLS, type ApiName } from '../../shared/contract'
import type { CallContext, HandlerTable } from '../handlers/table'
import { bodyCharges, HttpError, LIMITS, type BodyCharge } from './http'

export interface ServerLimits {
  /** Connections open at once; one more is answered 503 and closed at once. */
  maxConnections: number
  /** Job event streams (SSE) open at once; one more is answered 503. */
  maxEventStreams: number
  /** Request-body bytes held at once across all requests, from arrival until the reply is sent. */
  maxBodyBytesInFlight: number
  /** Time to send the request line and headers (at most `maxHeaderBytes`). */
  headersTimeoutMs: number
  maxHeaderBytes: number
  /** A body may take this long before the minimum rate applies... */
  bodyGraceMs: number
  /** ...then must keep up with this rate: a body of N bytes has at most grace + N / rate. */
  minBodyBytesPerSecond: number
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number
  /** Long work at once: running jobs plus opens, integrity runs and reports being answered. */
  maxHeavyWork: number
}

const MiB = 1024 * 1024

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxConnections: 64,
  maxEventStreams: 32,
  // One largest body (a replay file, LIMITS.replay) and room for the small JSON calls beside it.
  maxBodyBytesInFlight: LIMITS.replay + 32 * MiB,
  headersTimeoutMs: 10_000,
  maxHeaderBytes: 16 * 1024,
  bodyGraceMs: 10_000,
  minBodyBytesPerSecond: 256 * 1024,
  keepAliveTimeoutMs: 5_000,
  // Each may start worker threads (one per core) over the whole chain; the app itself runs at most
  // a verification, an integrity run and a report at once.
  maxHeavyWork: 4,
})

export function resolveLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  const l = { ...DEFAULT_LIMITS, ...given }
  for (const [k, v] of Object.entries(l)) {
    if (!Number.isSafeInteger(v) || v < 1)
      throw new RangeError(`server limit ${k} must be a positive integer`)
  }
  return l
}

/** The longest a body of `bytes` may take to arrive: the grace period, then the minimum rate. */
export function bodyDeadlineMs(l: ServerLimits, bytes: number): number {
  return l.bodyGraceMs + Math.ceil((bytes / l.minBodyBytesPerSecond) * 1000)
}

/**
 * node:http's own timers (lib/_http_server.js): headers within headersTimeout; the whole request
 * within requestTimeout — here only a backstop, the largest body's deadline, since guardBodyRate cuts
 * a slow body by its rate much earlier. The expiry check runs every half second instead of every 30 s,
 * so a timeout is enforced when it falls due.
 */
export function httpOptions(l: ServerLimits): HttpServerOptions {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.headersTimeoutMs + bodyDeadlineMs(l, LIMITS.replay) + 1000,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    connectionsCheckingInterval: 500,
    maxHeaderSize: l.maxHeaderBytes,
  }
}

/** A raw reply for a connection refused before any request was read. */
function rawReply(status: string, code: string, message: string, retryAfter?: number): string {
  const body = JSON.stringify({ error: message, code })
  return [
    `HTTP/1.1 ${status}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    ...(retryAfter === undefined ? [] : [`Retry-After: ${retryAfter}`]),
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * At most `max` connections: one more gets `503 unavailable` written at once and is closed (after a
 * second in which it may still send, so the client reads the reply instead of a reset). Requests
 * that still arrive on a refused connection are ignored (`isRefused`).
 */
export class ConnectionGate {
  private readonly open = new Set<Socket>()
  private readonly refused = new WeakSet<Socket>()

  constructor(server: Server, max: number) {
    server.on('connection', (socket: Socket) => {
      if (this.open.size >= max) {
        this.refused.add(socket)
        socket.end(
          rawReply(
            '503 Service Unavailable',
            'unavailable',
            `too many connections: this server keeps at most ${max} open; retry shortly`,
            1,
          ),
        )
        setTimeout(() => socket.destroy(), 1000).unref()
        return
      }
      this.open.add(socket)
      socket.once('close', () => this.open.delete(socket))
    })
  }

  get size(): number {
    return this.open.size
  }

  isRefused(socket: Socket): boolean {
    return this.refused.has(socket)
  }
}

/** Request-body bytes held at once by all requests together. */
export class ByteBudget {
  private used = 0
  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used
  }

  take(n: number): boolean {
    if (this.used + n > this.capacity) return false
    this.used += n
    return true
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n)
  }
}

/** One request's share of the budget, given back when its reply is done (or the client left). */
class BodyAccount implements BodyCharge {
  private held = 0
  constructor(
    private readonly budget: ByteBudget,
    res: ServerResponse,
  ) {
    res.once('close', () => {
      this.budget.give(this.held)
      this.held = 0
    })
  }

  reserve(n: number): void {
    if (this.budget.take(n)) {
      this.held += n
      return
    }
    const mib = (b: number): string => (b / MiB).toFixed(1)
    throw new HttpError(
      503,
      'unavailable',
      `the server is already receiving ${mib(this.budget.inUse)} MiB of request bodies (at most ${mib(this.budget.capacity)} MiB at once): retry shortly`,
      { 'Retry-After': '2' },
    )
  }
}

/** Charge `req`'s body to `budget` (readBody reserves through it) until `res` is closed. */
export function admitBody(req: IncomingMessage, res: ServerResponse, budget: ByteBudget): void {
  bodyCharges.set(req, new BodyAccount(budget, res))
}

function declaredLength(req: IncomingMessage): number | null {
  const len = req.headers['content-length']
  if (len === undefined) return req.headers['transfer-encoding'] === undefined ? 0 : null
  const n = Number(len)
  return Number.isSafeInteger(n) && n >= 0 ? n : null
}

/**
 * Cut a body that arrives slower than the minimum rate: after the grace period, the bytes received
 * must keep up with `minBodyBytesPerSecond` × the time since (so a body of N bytes has at most
 * grace + N / rate in all). Bytes are counted on the socket, so the rule holds whether a route reads
 * the body or not (GET bodies are drained unread). `onSlow` answers 408 and closes.
 */
export function guardBodyRate(
  req: IncomingMessage,
  l: ServerLimits,
  onSlow: (received: number, elapsedMs: number) => void,
): void {
  if (declaredLength(req) === 0 || req.complete) return
  const socket = req.socket
  const start = Date.now()
  const base = socket.bytesRead
  const timer = setInterval(() => {
    if (req.complete || socket.destroyed) {
      clearInterval(timer)
      return
    }
    const elapsed = Date.now() - start
    const received = socket.bytesRead - base
    const owed = ((elapsed - l.bodyGraceMs) / 1000) * l.minBodyBytesPerSecond
    if (owed > received) {
      clearInterval(timer)
      onSlow(received, elapsed)
    }
  }, 250)
  timer.unref()
  req.once('end', () => clearInterval(timer))
  req.once('close', () => clearInterval(timer))
}

/** The 408 for a body under the minimum rate. */
export function tooSlow(l: ServerLimits, received: number, elapsedMs: number): HttpError {
  return new HttpError(
    408,
    'bad_request',
    `request body too slow: ${received} bytes in ${(elapsedMs / 1000).toFixed(1)} s; after the first ${l.bodyGraceMs / 1000} s a body must arrive at ${l.minBodyBytesPerSecond / 1024} KiB/s or more`,
    { Connection: 'close' },
  )
}

/** A new job event stream, or 503 when `open` streams are already at the limit. */
export function admitStream(open: number, l: ServerLimits): void {
  if (open >= l.maxEventStreams)
    throw new HttpError(
      503,
      'unavailable',
      `too many event streams: at most ${l.maxEventStreams} at once; poll jobStatus or retry shortly`,
      { 'Retry-After': '2' },
    )
}

/**
 * Long work (a verification or integrity job, an open, an integrity run, a report) at most
 * `max` at once, counting running jobs: one more is refused `unavailable` (503) at once.
 */
export class WorkGate {
  private inFlight = 0
  constructor(
    private readonly max: number,
    private readonly runningJobs: () => number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    const busy = this.inFlight + this.runningJobs()
    if (busy >= this.max)
      throw new AuditError(
        'unavailable',
        `busy: ${busy} long tasks are running (verifications, integrity runs, reports, opens; at most ${this.max} at once): wait for one to end, or cancel a job`,
      )
    this.inFlight++
    try {
      return await work()
    } finally {
      this.inFlight--
    }
  }
}

/**
 * Every call of the contract, classified (issue 34): `heavy` reads a whole chain (an open, a
 * verification, a report, a search, an export…) or a whole document a client sends (a report, a
 * prior, a replay output) and passes the long-work gate; `light` reads at most one row or page of
 * the index already in memory, or only state; `refused` is never taken over HTTP. A Record over the
 * contract's names: a call added without a class does not compile, and test/main/server checks
 * each class against the server.
 */
export const CALL_WEIGHT: Readonly<Record<ApiName, 'heavy' | 'light' | 'refused'>> = {
  appInfo: 'light',
  openChain: 'heavy', // indexes the whole chain (and copies it when it cannot be read in place)
  pickAndOpenChain: 'heavy', // the same, after the desktop dialog
  closeChain: 'light',
  overview: 'light',
  currentChain: 'light',
  listEntries: 'light', // at most 1000 rows, positions from the in-memory index
  locateEntry: 'light',
  getEntry: 'light', // one row
  seqGaps: 'light', // one pass over the in-memory index's seq column
  listNames: 'light', // one pass over the in-memory index's names (counted once per chain)
  seqTimes: 'light', // at most 10,000 look-ups in the in-memory index
  timeline: 'light', // buckets of the in-memory index
  setSecrets: 'light',
  listKeys: 'light',
  startVerify: 'heavy',
  startRecover: 'heavy', // searches every page and frame of the files
  lastVerdict: 'light',
  checkRow: 'light', // one row
  runIntegrity: 'heavy',
  startIntegrity: 'heavy',
  jobStatus: 'light',
  cancelJob: 'light',
  checkReplay: 'heavy', // a replay output of up to 64 MiB
  listReplayChecks: 'light',
  buildReport: 'heavy',
  saveReport: 'heavy',
  keylessVerdict: 'light', // the status of the job the open started
  startSearch: 'heavy',
  resolveTimeRange: 'light',
  exportView: 'heavy',
  saveViewExport: 'heavy',
  startDriftSeries: 'heavy',
  buildReportHtml: 'heavy', // a whole report, then its page
  setSigningKey: 'refused', // never over HTTP (serve --sign-key)
  pickSigningKey: 'refused',
  signingKey: 'light',
  setPrior: 'heavy', // a report of up to 64 MiB parsed, its rows digest checked later
  checkReport: 'heavy', // a report parsed and checked against every row of the chain
  checkReplayBatch: 'heavy', // a batch of replay outputs against the chain, read in one pass
}

/** Calls that start or do long work over a whole chain or document. */
export const HEAVY_CALLS: readonly ApiName[] = API_CALLS.filter((n) => CALL_WEIGHT[n] === 'heavy')

/** `table` with its long calls run through `gate` (the reference routes use the same table). */
export function gateHeavyCalls(table: HandlerTable, gate: WorkGate): HandlerTable {
  const out: Record<string, Handler> = { ...table }
  for (const name of HEAVY_CALLS) {
    const handler = table[name] as Handler
    out[name] = (req, ctx) => gate.run(() => handler(req, ctx))
  }
  return out as HandlerTable
}

type Handler = (req: unknown, ctx: CallContext) => Promise<unknown>
