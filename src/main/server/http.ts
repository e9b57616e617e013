// Small HTTP helpers: JSON replies with the security headers, errors as `{ error, code }`, request
// bodies read under a size limit. Nothing here ever writes a stack trace to a client.
import { duplicateKey } from '../base/json-keys'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiErrorBody } from '../../shared/contract'

export type ErrorCode = ApiErrorBody['code']

/** HTTP status of each contract error code. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  not_found: 404,
  no_chain: 409,
  not_a_chain: 422,
  forbidden: 403,
  unavailable: 503,
  internal: 500,
}

/** An error that already knows its HTTP status. */
export class HttpError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly headers: Record<string, string>
  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.headers = headers
  }
}

/** Request bodies: contract calls are small; a replay file (base64) may be large. */
export const LIMITS = {
  json: 1024 * 1024,
  replay: 96 * 1024 * 1024,
} as const

/** Headers every reply carries. JSON replies also get a CSP that allows nothing at all. */
export const BASE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

export const API_CSP = "default-src 'none'; frame-ancestors 'none'"

function setHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v)
}

/** JSON with BigInt written as plain integers (the contract uses strings, but be safe). */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
  return text === undefined ? 'null' : text
}

export function sendRaw(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  setHeaders(res, BASE_HEADERS)
  res.setHeader('Content-Security-Policy', API_CSP)
  res.setHeader('Cache-Control', 'no-store')
  setHeaders(res, headers)
  res.setHeader('Content-Type', contentType)
  res.setHeader('Content-Length', String(buf.length))
  res.statusCode = status
  res.end(res.req?.method === 'HEAD' ? undefined : buf)
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, status, 'application/json; charset=utf-8', toJsonText(value), headers)
}

/** A JSON text built elsewhere (e.g. the integrity report's Python-identical JSON). */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  sendRaw(res, status, 'application/json; charset=utf-8', text)
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body: ApiErrorBody = { error: message, code }
  sendJson(res, status, body, headers)
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

/** Whether the request declares a body (a non-zero Content-Length, or a Transfer-Encoding). */
export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length']
  if (len !== undefined) return Number(len) > 0
  return req.headers['transfer-encoding'] !== undefined
}

/** What a body's bytes are charged to while they are held (limits.ts: the server's byte budget). */
export interface BodyCharge {
  /** Hold `n` more bytes, or throw the HttpError that refuses them. */
  reserve(n: number): void
}

/** The charge of each request, set by the server before routing (absent: nothing is charged). */
export const bodyCharges = new WeakMap<IncomingMessage, BodyCharge>()

/**
 * Read a request body of at most `limit` bytes. A body must be declared JSON: the content types a
 * cross-site form or a no-preflight fetch can send (text/plain, form encodings, none) are refused,
 * so a browser can never post to this server from another origin without a CORS preflight (which
 * this server never answers). A declared Content-Length is charged in full before reading (and read
 * into one buffer of that size: no second copy); a chunked body is charged as it arrives.
 */
/** JSON Lines (`POST /replay/verify-batch`): like JSON, a type no form or simple request can send. */
export const NDJSON_TYPE = /^application\/(?:x-ndjson|jsonl|x-jsonlines)\s*(?:;.*)?$/i

export async function readRequestBody(
  req: IncomingMessage,
  limit: number,
  accept: { type: RegExp; name: string } = { type: JSON_TYPE, name: 'application/json' },
): Promise<Buffer> {
  if (!hasBody(req)) {
    req.resume()
    return Buffer.alloc(0)
  }
  const type = req.headers['content-type']
  if (type === undefined || !accept.type.test(type)) {
    throw new HttpError(
      415,
      'bad_request',
      accept.type === JSON_TYPE
        ? 'request bodies must be JSON: send Content-Type: application/json'
        : `send the body as Content-Type: ${accept.name}`,
    )
  }
  const header = req.headers['content-length']
  const declared = header === undefined ? null : Number(header)
  if (declared !== null && declared > limit) throw tooLarge(limit)
  const charge = bodyCharges.get(req)
  if (declared !== null) charge?.reserve(declared)
  return new Promise<Buffer>((resolve, reject) => {
    const whole = declared !== null ? Buffer.allocUnsafe(declared) : null
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const finish = (err: Error | null, value?: Buffer): void => {
      if (settled) return
      settled = true
      if (err) reject(err)
      else resolve(value!)
    }
    req.on('data', (c: Buffer) => {
      if (settled) return
      if (size + c.length > limit || (whole && size + c.length > whole.length)) {
        chunks.length = 0
        finish(tooLarge(limit))
        return
      }
      if (whole) c.copy(whole, size)
      else {
        try {
          charge?.reserve(c.length)
        } catch (e) {
          chunks.length = 0
          finish(e as Error)
          return
        }
        chunks.push(c)
      }
      size += c.length
    })
    req.on('end', () => finish(null, whole ? whole.subarray(0, size) : Buffer.concat(chunks, size)))
    req.on('error', (e) => finish(e))
    req.on('close', () => finish(new HttpError(400, 'bad_request', 'request body incomplete')))
  })
}

/** Over the route's limit: the rest is not read, so the connection cannot carry another request. */
function tooLarge(limit: number): HttpError {
  const mib = limit / (1024 * 1024)
  return new HttpError(413, 'bad_request', `request body is over the ${mib} MiB limit for this route`, {
    Connection: 'close',
  })
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The body as JSON; an empty body is `undefined` (a call without a request). */
export function parseJson(buf: Buffer): unknown {
  if (buf.length === 0) return undefined
  let text: string
  try {
    text = utf8.decode(buf)
  } catch {
    throw new HttpError(400, 'bad_request', 'malformed JSON: the body is not valid UTF-8')
  }
  let value: unknown
  try {
    value = JSON.parse(text) as unknown
  } catch (e) {
    throw new HttpError(400, 'bad_request', `malformed JSON: ${(e as Error).message.split('\n')[0]}`)
  }
  const twice = duplicateKey(text)
  if (twice !== null)
    throw new HttpError(
      400,
      'bad_request',
      `malformed JSON: the name ${JSON.stringify(twice.slice(0, 100))} appears twice in one object`,
    )
  return value
}

/**
 * After a refusal sent before the body was read (413, 503, a bad route), read and discard the rest
 * of the body so the client can finish sending and then read the reply: closing while it still sends
 * makes its next write fail (EPIPE, ECONNRESET), and a client then often never reads the reply (the
 * "lingering close" of RFC 9112 §9.6). At most `maxBytes` are discarded (a longer body is cut there);
 * a body that comes too slowly is cut by the server's body-rate guard (limits.ts). Once the body has
 * ended, the connection may carry the next request.
 */
export function discardRest(req: IncomingMessage, maxBytes = LIMITS.replay): void {
  if (req.complete) return
  req.removeAllListeners('data')
  let discarded = 0
  req.on('data', (c: Buffer) => {
    discarded += c.length
    if (discarded > maxBytes) req.socket.destroy()
  })
  req.resume()
}
