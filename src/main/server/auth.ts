// Who may talk to the server, and who counts as "the local app".
//
// - Loopback by default; any other address needs an API key, then every request but /health and
//   /version must carry `Authorization: Bearer <key>`.
// - The local app is the page this server served: it holds a random per-start token (injected into
//   index.html) and sends it back as `X-Bijotel-App-Token`. Only then, and only on loopback, is a
//   call trusted (e.g. `setSecrets`).
// - Secrets are compared in constant time: SHA-256 of both sides, then `timingSafeEqual` on the two
//   equal-length digests, so neither the content nor the length leaks through timing.
// - On loopback the Host header must name this server (DNS-rebinding protection); a POST whose
//   Origin header is not this server's own origin is refused (CSRF).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { HttpError } from './http'

export const APP_TOKEN_HEADER = 'x-bijotel-app-token'
export const MIN_API_KEY_LENGTH = 16

export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./i.test(h)
  return false
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}

/** Constant-time equality of two secrets of any lengths. */
export function secretEquals(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
}

export function newAppToken(): string {
  return randomBytes(32).toString('base64url')
}

/** Throws 401 unless the request carries `Authorization: Bearer <apiKey>`. */
export function requireBearer(req: IncomingMessage, apiKey: string): void {
  const header = req.headers['authorization']
  const challenge = { 'WWW-Authenticate': 'Bearer' }
  // Two Authorization fields: node keeps the first, a proxy in front may pass on the last — which
  // key the request carries is not settled (RFC 9110 §5.3: a field that is not a list appears once).
  let fields = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]!.toLowerCase() === 'authorization') fields++
  if (fields > 1) throw new HttpError(401, 'forbidden', 'more than one Authorization header', challenge)
  const m = typeof header === 'string' ? /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null
  if (!m) {
    throw new HttpError(
      401,
      'forbidden',
      "missing or malformed Authorization header: send 'Authorization: Bearer <key>'",
      challenge,
    )
  }
  if (!secretEquals(m[1]!, apiKey)) throw new HttpError(401, 'forbidden', 'invalid API key', challenge)
}

/** Whether the request comes from the page this server served (loopback only). */
export function isTrustedApp(req: IncomingMessage, appToken: string, loopback: boolean): boolean {
  const given = req.headers[APP_TOKEN_HEADER]
  if (!loopback || typeof given !== 'string' || given === '') return false
  return secretEquals(given, appToken)
}

/** Host names a browser may use for this server when it listens on loopback. */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]'])
  names.add(isIP(boundHost) === 6 ? `[${boundHost}]` : boundHost)
  const out = new Set<string>()
  for (const n of names) {
    out.add(`${n}:${port}`)
    if (port === 80) out.add(n)
  }
  return out
}

/**
 * The authority a request names, lower-cased: RFC 9112 §3.2.2, with an absolute-form target the
 * authority is the target's and the Host field is ignored (no user info, RFC 9110 §4.2.4); anything
 * else that is not origin-form (`*`, an authority-form) names none (undefined).
 */
function requestAuthority(req: IncomingMessage): string | undefined {
  const target = req.url ?? '/'
  if (target.startsWith('/')) return req.headers.host?.toLowerCase()
  try {
    const u = new URL(target)
    if (u.protocol === 'http:' && u.username === '' && u.password === '') return u.host.toLowerCase()
  } catch {
    // not a URL: no authority
  }
  return undefined
}

/** DNS-rebinding guard: on loopback, the Host header must be one of this server's names. */
export function checkHost(req: IncomingMessage, hosts: Set<string> | null): void {
  // RFC 9112 §3.2: a request with more than one Host field is answered 400 (node keeps the first,
  // another reader of the same bytes the last).
  let fields = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') fields++
  if (fields > 1) throw new HttpError(400, 'bad_request', 'more than one Host header')
  if (!hosts) return
  const host = requestAuthority(req)
  if (!host || !hosts.has(host))
    throw new HttpError(
      403,
      'forbidden',
      'unexpected Host header: this server answers only to its loopback address',
    )
}

/**
 * Where a browser says a request comes from (W3C Fetch Metadata, `Sec-Fetch-Site`): a request from
 * another site — or another port of this one (`same-site`: `localhost:3000` is the same site as
 * `localhost:8080`) — is refused on every route, whatever its method. A GET needs no preflight and
 * no Origin, so without this a page anywhere could make the browser hold `/api/events` streams (the
 * app's own stream then refused at the stream limit), start `/integrity` work, or fetch `/chain`
 * rows it cannot read but the server still reads for it. The one exception is a top-level
 * navigation to the app's page (`pageNavigation`): a deep link sent to a colleague arrives from
 * wherever it was clicked, and what it loads is our own page in its own window (frames are refused
 * by X-Frame-Options and frame-ancestors). Clients that send no such header (curl, scripts) are not
 * browsers and are held to the other checks only. Two fields are joined by node into one value that
 * is none of the allowed ones, so a duplicate is refused too.
 */
export function checkFetchSite(req: IncomingMessage, pageNavigation: boolean): void {
  const site = req.headers['sec-fetch-site']
  if (site === undefined) return
  const v = site.trim().toLowerCase()
  if (v === 'same-origin' || v === 'none') return
  if (pageNavigation && (v === 'same-site' || v === 'cross-site')) {
    const mode = req.headers['sec-fetch-mode']
    const dest = req.headers['sec-fetch-dest']
    if (mode === 'navigate' && (dest === undefined || dest === 'document')) return
  }
  throw new HttpError(
    403,
    'forbidden',
    `request from another site refused (Sec-Fetch-Site ${JSON.stringify(site.slice(0, 40))})`,
  )
}

/**
 * CSRF guard: an Origin header, when present, must be our own — on every method: a browser sends
 * Origin with a cross-origin GET it makes in CORS mode (fetch, EventSource), never a foreign one
 * with a same-origin request.
 */
export function checkOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin
  if (origin === undefined) return
  // This server's origin as the request names it: the target's authority when the target is in
  // absolute form (the Host field is then ignored: a foreign Host must not make a foreign Origin own).
  const own = `http://${requestAuthority(req) ?? ''}`
  if (origin.toLowerCase() !== own)
    throw new HttpError(403, 'forbidden', `cross-origin request refused (Origin ${origin.slice(0, 200)})`)
}
