// Every reply of `bijotel serve` but the page's own static assets is `Cache-Control: no-store`: a
// verdict, a report, an entry or an error names the evidence and what the auditor's key proved, and
// no browser or proxy cache may keep it for a later page (or another user of the profile). The
// request generator: every contract call (with and without the app token, with bodies the handler
// takes and refuses, another method), the reference routes, event streams, unknown paths, HEAD.
// Found nothing on this code: the test holds the behaviour.
import { describe, expect, it } from 'vitest'
import { API_CALLS } from '../../../src/shared/contract'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { serveForSuite } from '../testing/served'

const s = serveForSuite({ prefix: 'bijotel-cache-', open: dbPath('clean'), keys: ['primary'] })

const BODIES: unknown[] = [
  undefined,
  {},
  { seq: 1 },
  { offset: 0, limit: 5 },
  { path: '/nope.db' },
  [],
  'x',
  7,
]

async function reply(path: string, init: RequestInit): Promise<{ status: number; cache: string | null }> {
  const ctl = new AbortController()
  const res = await fetch(`${s.base}${path}`, { ...init, signal: ctl.signal })
  const cache = res.headers.get('cache-control')
  const type = res.headers.get('content-type') ?? ''
  // An event stream stays open: its headers are what is asked of it.
  if (type.startsWith('text/event-stream')) ctl.abort()
  else await res.arrayBuffer()
  return { status: res.status, cache }
}

describe('Cache-Control on every reply', () => {
  it('generated requests to every call and route', async () => {
    const rnd = mulberry32(4711)
    const seen = new Set<number>()
    for (const name of API_CALLS) {
      for (let i = 0; i < 3; i++) {
        const body = BODIES[Math.floor(rnd() * BODIES.length)]
        const withToken = rnd() < 0.6
        const headers: Record<string, string> = { 'Content-Type': 'application/json' }
        if (withToken) headers['X-Bijotel-App-Token'] = s.token
        const method = rnd() < 0.85 ? 'POST' : 'GET'
        const r = await reply(`/api/call/${name}`, {
          method,
          headers,
          ...(method === 'POST' && body !== undefined ? { body: JSON.stringify(body) } : {}),
        })
        seen.add(r.status)
        expect(r.cache, `${method} ${name} ${JSON.stringify(body)} -> ${r.status}`).toBe('no-store')
      }
    }
    const paths = [
      '/health',
      '/version',
      '/chain',
      '/chain?limit=2',
      '/chain/1',
      '/chain/999999',
      '/chain/verify',
      '/integrity',
      '/replay/verify',
      '/api/events',
      '/api/jobs/nope/events',
      '/api/nope',
      '/',
      '/index.html',
      '/no/such/page',
    ]
    for (const p of paths)
      for (const method of ['GET', 'HEAD', 'POST']) {
        const r = await reply(p, {
          method,
          headers: { 'Content-Type': 'application/json', 'X-Bijotel-App-Token': s.token },
          ...(method === 'POST' ? { body: '{}' } : {}),
        })
        seen.add(r.status)
        expect(r.cache, `${method} ${p} -> ${r.status}`).toBe('no-store')
      }
    // The app's hashed assets may be revalidated, never kept unchecked.
    expect((await reply('/assets/index-abc.js', { method: 'GET' })).cache).toBe('no-cache')
    expect(seen.size).toBeGreaterThan(4)
  }, 120_000)
})
