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

/** DNS-rebinding guard: on loopback, the Host header must be one of this server's names. */
export function checkHost(req: IncomingMessage, hosts: Set<string> | null): void {
  if (!hosts) return
  const host = req.headers.host?.toLowerCase()
  if (!host || !hosts.has(host))
    throw new HttpError(
      403,
      'forbidden',
      'unexpected Host header: this server answers only to its loopback address',
    )
}

/** CSRF guard for state-changing requests: an Origin header, when present, must be our own. */
export function checkOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin
  if (origin === undefined) return
  const own = `http://${req.headers.host ?? ''}`.toLowerCase()
  if (origin.toLowerCase() !== own)
    throw new HttpError(403, 'forbidden', `cross-origin request refused (Origin ${origin.slice(0, 200)})`)
}
