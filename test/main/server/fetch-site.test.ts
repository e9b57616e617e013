// Fetch metadata on every route (round 10, issue 29): a browser marks each request with where it
// comes from (`Sec-Fetch-Site`, W3C Fetch Metadata) and, in CORS mode, `Origin`. A GET needs no
// preflight, so on the old code a page on any site (or on another port of localhost: `same-site`)
// could make the visitor's browser open `/api/events` streams until the app's own stream was refused
// at the limit, start `/integrity` work, or have rows read for `/chain` — the Origin check held only
// for POST. Generated: every kind of route (public, contract call, event streams, reference routes,
// the page, assets, unknown paths, OPTIONS) × method × where-from (cross-site, same-site, a foreign
// Origin, duplicated or odd header values), with and without an API key. Every one is refused with
// 403 `forbidden` (HEAD: the status alone); the same request marked same-origin, none or unmarked is not
// refused by this check; and a top-level navigation to the page is served from anywhere (a deep link
// is clicked wherever it was sent).
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { fakeRenderer, tempDir } from './testkit'

const KEY = 'fetch-site-key-0123456789'
const tmp = tempDir('bijotel-fetch-site-')
const site = fakeRenderer(tmp.dir)
const servers: { server: RunningServer; session: AuditSession; key: string | null }[] = []

beforeAll(async () => {
  for (const key of [null, KEY]) {
    const session = new AuditSession({ initialPath: dbPath('clean') })
    await session.open(dbPath('clean'))
    const server = await startServer({ session, port: 0, staticDir: site, ...(key ? { apiKey: key } : {}) })
    servers.push({ server, session, key })
  }
})
afterAll(async () => {
  for (const s of servers) {
    await s.server.close()
    s.session.dispose()
  }
  tmp.cleanup()
})

interface Head {
  status: number
  code: string | null
}

/** One request; resolves on the reply's head (an event stream is cut there), with its error code. */
function ask(port: number, method: string, path: string, headers: Record<string, string>): Promise<Head> {
  return new Promise((resolve, reject) => {
    const body = method === 'POST' ? '{}' : undefined
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        const status = res.statusCode ?? 0
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy()
          resolve({ status, code: null })
          return
        }
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          let code: string | null = null
          try {
            code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string }).code ?? null
          } catch {
            // not JSON (a page, an asset)
          }
          resolve({ status, code })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const PATHS = [
  '/health',
  '/api/version',
  '/api/call/overview',
  '/api/call/listKeys',
  '/api/call/noSuchCall',
  '/api/events',
  '/api/jobs/nope/events',
  '/integrity',
  '/chain',
  '/chain/1',
  '/chain/verify',
  '/replay/verify',
  '/api/nothing',
  '/',
  '/index.html',
  '/assets/index-abc.js',
  '/some/client/route',
]
const METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'DELETE']
/** Ways a browser (or a forger of one) marks a request from elsewhere. */
const FOREIGN: ((port: number) => Record<string, string>)[] = [
  () => ({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' }),
  () => ({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' }),
  () => ({ 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' }),
  () => ({ 'Sec-Fetch-Site': 'Cross-Site', 'Sec-Fetch-Mode': 'no-cors' }),
  () => ({ 'Sec-Fetch-Site': 'same-origin, cross-site' }),
  () => ({ 'Sec-Fetch-Site': '' }),
  () => ({ 'Sec-Fetch-Site': 'somewhere-new' }),
  () => ({ Origin: 'http://evil.example' }),
  (port) => ({ Origin: `http://localhost:${port + 1}` }),
  () => ({ Origin: 'null' }),
]
/** The same request as the app's own page, or no browser at all, marks it. */
const OWN: ((port: number) => Record<string, string>)[] = [
  () => ({}),
  () => ({ 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' }),
  () => ({ 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' }),
  (port) => ({ Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' }),
]

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!
}

describe('requests from another site are refused on every route', () => {
  for (const keyed of [false, true])
    it(`${keyed ? 'with' : 'without'} an API key: generated route × method × marking`, async () => {
      const { server, key } = servers[keyed ? 1 : 0]!
      const auth: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {}
      const rnd = mulberry32(keyed ? 7919 : 104729)
      const wrong: string[] = []
      for (let k = 0; k < 60; k++) {
        const path = pick(rnd, PATHS)
        const method = pick(rnd, METHODS)
        const foreign = pick(rnd, FOREIGN)(server.port)
        const own = pick(rnd, OWN)(server.port)
        const refused = await ask(server.port, method, path, { ...auth, ...foreign })
        if (refused.status !== 403 || (method !== 'HEAD' && refused.code !== 'forbidden'))
          wrong.push(`${method} ${path} ${JSON.stringify(foreign)} -> ${refused.status} ${refused.code}`)
        const control = await ask(server.port, method, path, { ...auth, ...own })
        if (control.status === 403) wrong.push(`control ${method} ${path} ${JSON.stringify(own)} -> 403`)
      }
      expect(wrong).toEqual([])
    })

  it('a top-level navigation to the page is served from any site; to the API it is not', async () => {
    const { server } = servers[0]!
    const nav = (from: string): Record<string, string> => ({
      'Sec-Fetch-Site': from,
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-Dest': 'document',
      'Sec-Fetch-User': '?1',
    })
    for (const from of ['cross-site', 'same-site', 'none', 'same-origin']) {
      for (const path of ['/', '/index.html', '/some/client/route'])
        expect((await ask(server.port, 'GET', path, nav(from))).status, `${from} ${path}`).toBe(200)
      for (const path of ['/integrity', '/chain', '/api/events', '/health'])
        expect((await ask(server.port, 'GET', path, nav(from))).status === 403, `${from} ${path}`).toBe(
          from === 'cross-site' || from === 'same-site',
        )
    }
    // A page framed elsewhere, or a form posted from elsewhere, is no top-level navigation of ours.
    const framed = { ...nav('cross-site'), 'Sec-Fetch-Dest': 'iframe' }
    expect((await ask(server.port, 'GET', '/', framed)).status).toBe(403)
    expect((await ask(server.port, 'POST', '/', nav('cross-site'))).status).toBe(403)
  })
})
