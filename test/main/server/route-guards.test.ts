// Every route, enumerated rather than listed by hand (round 11, issue 29): each contract call of the
// one handler table (`/api/call/<name>`), every path the server's modules name (their '/…' string
// literals: the reference routes, the public paths), the app's events and the patterned ones. A route
// added later is in this enumeration by construction (a new call is a row of API_CALLS and of the
// table; a new path is a literal in src/main/server/) and must be refused, with no evidence in the
// reply: without the API key (401), from another site or a foreign Origin (403), with a foreign Host
// (403, DNS rebinding). The same request with the key from the app's own origin reaches the call
// (never 401/403/404), so the enumeration is of real routes.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_CALLS } from '../../../src/shared/contract'
import { APP_EVENTS_PATH } from '../../../src/shared/app-events'
import { createHandlers } from '../../../src/main/handlers/table'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { fakeRenderer, rawRequest, tempDir } from './testkit'

const KEY = 'route-guards-key-0123456789'
const SERVER_DIR = join(__dirname, '../../../src/main/server')
const tmp = tempDir('bijotel-route-guards-')
const site = fakeRenderer(tmp.dir)
let keyed: { server: RunningServer; session: AuditSession }
let open: { server: RunningServer; session: AuditSession }

/** Every '/…' literal of the server's modules (routes, prefixes, public paths). */
function literalPaths(): string[] {
  const out = new Set<string>()
  for (const f of readdirSync(SERVER_DIR).filter((n) => n.endsWith('.ts'))) {
    const src = readFileSync(join(SERVER_DIR, f), 'utf8')
    for (const m of src.matchAll(/'(\/[A-Za-z0-9/_.-]*)'/g)) out.add(m[1]!)
  }
  return [...out]
}

const ROUTES = (): string[] => [
  ...API_CALLS.map((c) => `/api/call/${c}`),
  ...literalPaths(),
  APP_EVENTS_PATH,
  '/api/jobs/abc-1/events',
  '/chain/1',
  '/chain/verify',
]
const EVIDENCE = /clean\.db|fixtures|sha256/

beforeAll(async () => {
  const start = async (apiKey: string | null) => {
    const session = new AuditSession({ initialPath: dbPath('clean') })
    await session.open(dbPath('clean'))
    const server = await startServer({ session, port: 0, staticDir: site, ...(apiKey ? { apiKey } : {}) })
    return { server, session }
  }
  keyed = await start(KEY)
  open = await start(null)
})
afterAll(async () => {
  for (const s of [keyed, open]) {
    await s.server.close()
    s.session.dispose()
  }
  tmp.cleanup()
})

describe('every route is guarded', () => {
  it('the handler table is the contract: one handler per API_CALLS row, no other', () => {
    const table = createHandlers(new AuditSession())
    expect(Object.keys(table).sort()).toEqual([...API_CALLS].sort())
  })

  it('the enumeration holds the reference routes and every contract call', () => {
    const r = ROUTES()
    for (const p of [
      '/integrity',
      '/chain',
      '/replay/verify',
      '/replay/verify-batch',
      '/api/events',
      '/health',
    ])
      expect(r, p).toContain(p)
    expect(r.filter((p) => p.startsWith('/api/call/')).length).toBeGreaterThanOrEqual(API_CALLS.length)
  })

  it('generated route × method × refusal: without the key, cross-site, foreign Origin or Host', async () => {
    const rnd = mulberry32(29)
    const port = keyed.server.port
    const openPort = open.server.port
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
    for (const path of ROUTES()) {
      const isPublic = ['/health', '/version', '/api/health', '/api/version'].includes(path)
      for (const method of ['GET', 'POST', 'HEAD']) {
        const body = method === 'POST' ? '{}' : undefined
        const json = { 'Content-Type': 'application/json' }
        // No key (or a wrong one): 401 everywhere but the public paths, which say nothing of the chain.
        const noKey = await rawRequest(port, {
          method,
          path,
          headers: {
            ...json,
            ...pick<Record<string, string>>([
              {},
              { Authorization: 'Bearer wrong-key-0123456789' },
              { Authorization: KEY },
            ]),
          },
          ...(body ? { body } : {}),
        })
        if (isPublic) {
          expect(noKey.text, `${method} ${path}`).not.toMatch(EVIDENCE)
        } else {
          expect(noKey.status, `${method} ${path} without the key`).toBe(401)
          expect(noKey.text).not.toMatch(EVIDENCE)
        }
        // With the key, from elsewhere: refused before any route.
        const foreign = pick<Record<string, string>>([
          { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' },
          { 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'no-cors' },
          { Origin: 'http://evil.example' },
          { Origin: `http://127.0.0.1:${port + 1}` },
        ])
        const cross = await rawRequest(port, {
          method,
          path,
          headers: { ...json, Authorization: `Bearer ${KEY}`, ...foreign },
          ...(body ? { body } : {}),
        })
        expect(cross.status, `${method} ${path} ${JSON.stringify(foreign)}`).toBe(403)
        expect(cross.text).not.toMatch(EVIDENCE)
        // A loopback server without a key: a foreign Host (a rebinding page) is refused.
        const rebound = await rawRequest(openPort, {
          method,
          path,
          headers: {
            ...json,
            Host: pick(['evil.example', `evil.example:${openPort}`, `127.0.0.1:${openPort + 1}`]),
          },
          ...(body ? { body } : {}),
        })
        expect(rebound.status, `${method} ${path} foreign Host`).toBe(403)
        expect(rebound.text).not.toMatch(EVIDENCE)
      }
    }
  }, 120_000)

  it('with the key, from its own origin, every contract call is reached', async () => {
    const port = keyed.server.port
    for (const c of API_CALLS) {
      const r = await rawRequest(port, {
        method: 'POST',
        path: `/api/call/${c}`,
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${KEY}`,
          Origin: `http://127.0.0.1:${port}`,
          'Sec-Fetch-Site': 'same-origin',
        },
        body: '{}',
      })
      // Refused for its own reasons perhaps (a bad argument, not over HTTP), never as a stranger.
      expect([401, 404].includes(r.status), `${c}: ${r.status}`).toBe(false)
      if (r.status === 403) expect(r.text, c).not.toMatch(/"code":"forbidden".*(key|origin|site|host)/i)
    }
  }, 60_000)
})
