// The server's security properties over real HTTP: loopback by default, API key auth (constant-time),
// the app token for setSecrets, Host/Origin checks, no CORS, body limits and content types, error
// bodies, security headers, and static files confined to their folder.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import * as crypto from 'node:crypto'
import { connect } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath, fingerprintFolder, REPO_ROOT, SECRETS, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/chain/keys'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { RENDERER_CSP } from '../../../src/main/server/static'
import { callApi, fakeRenderer, fetchAppToken, http, rawRequest, tempDir } from './testkit'

vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>()
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) }
})

const before = fingerprintFolder()
const tmp = tempDir('bijotel-sec-')
const staticDir = fakeRenderer(join(tmp.dir, 'site'))
const KEY = 'k3y-for-tests-0123456789abcdef'
const PRIMARY = SECRETS['primary']!

function newSession(): AuditSession {
  const s = new AuditSession({ initialPath: dbPath('clean') })
  s.keys = parseSecrets(secretInputs(['primary']))
  return s
}

const sessions: AuditSession[] = []
const servers: RunningServer[] = []

async function serve(
  opts: Omit<Parameters<typeof startServer>[0], 'session'> = {},
): Promise<{ server: RunningServer; base: string; session: AuditSession }> {
  const session = newSession()
  await session.open(dbPath('clean'))
  sessions.push(session)
  const server = await startServer({ session, port: 0, ...opts })
  servers.push(server)
  return { server, base: `http://127.0.0.1:${server.port}`, session }
}

afterAll(async () => {
  for (const s of servers) await s.close()
  for (const s of sessions) s.dispose()
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

function expectErrorBody(text: string, code?: string): void {
  const body = JSON.parse(text) as Record<string, unknown>
  expect(Object.keys(body).sort()).toEqual(['code', 'error'])
  expect(typeof body['error']).toBe('string')
  expect(body['error']).not.toMatch(/\n|\s+at\s+\S+\s+\(|\.ts:\d+/)
  if (code) expect(body['code']).toBe(code)
}

describe('listening', () => {
  it('binds 127.0.0.1 by default', async () => {
    const session = newSession()
    sessions.push(session)
    const s = await startServer({ session, port: 0 })
    servers.push(s)
    expect(s.host).toBe('127.0.0.1')
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/`)
  })

  it('refuses a non-loopback host without an API key, with a clear error', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com']) {
      await expect(startServer({ session: newSession(), host, port: 0 })).rejects.toThrow(
        new RegExp(`refusing to listen on ${host.replace(/\./g, '\\.')} without an API key`),
      )
    }
    await expect(
      startServer({ session: newSession(), host: '0.0.0.0', port: 0, apiKey: '' }),
    ).rejects.toThrow(/without an API key/)
  })

  it('refuses a static folder that does not exist', async () => {
    await expect(
      startServer({ session: newSession(), port: 0, staticDir: join(tmp.dir, 'no-such-dir') }),
    ).rejects.toThrow(/static folder .* does not exist/)
  })

  it('refuses an API key shorter than 16 characters', async () => {
    await expect(startServer({ session: newSession(), port: 0, apiKey: 'short' })).rejects.toThrow(
      /at least 16 characters/,
    )
  })

  it('reports a port in use as a listen error', async () => {
    const { server } = await serve()
    await expect(startServer({ session: newSession(), port: server.port })).rejects.toMatchObject({
      name: 'ListenError',
      code: 'EADDRINUSE',
      message: expect.stringContaining('address already in use'),
    })
  })
})

describe('API key', () => {
  const spy = vi.mocked(crypto.timingSafeEqual)
  let base: string
  let port: number

  beforeAll(async () => {
    const s = await serve({ host: '0.0.0.0', apiKey: KEY, staticDir })
    base = s.base
    port = s.server.port
  })
  beforeEach(() => {
    spy.mockClear()
  })

  const auth = { Authorization: `Bearer ${KEY}` }

  it('is required on every route but /health and /version, static files included', async () => {
    for (const [method, path] of [
      ['POST', '/api/call/overview'],
      ['GET', '/chain'],
      ['GET', '/chain/1'],
      ['GET', '/integrity'],
      ['POST', '/chain/verify'],
      ['POST', '/replay/verify'],
      ['GET', '/api/jobs/abc/events'],
      ['GET', '/'],
      ['GET', '/assets/index-abc.js'],
      ['GET', '/no/such/route'],
    ] as const) {
      const r = await http(`${base}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      })
      expect(r.status, `${method} ${path}`).toBe(401)
      expect(r.headers.get('www-authenticate')).toBe('Bearer')
      expectErrorBody(r.text, 'forbidden')
    }
    const health = await http(`${base}/health`)
    expect(health.status).toBe(200)
    // Unauthenticated, /health does not tell where the evidence lies.
    expect(health.json).toMatchObject({ status: 'ok', db: null, db_exists: true })
    expect((await http(`${base}/version`)).status).toBe(200)
    expect((await http(`${base}/health`, { headers: auth })).json).toMatchObject({ db: dbPath('clean') })
  })

  it('accepts the right key (scheme case-insensitive), refuses wrong, malformed and near-miss keys', async () => {
    const ok = await callApi(base, 'overview', undefined, auth)
    expect(ok.status).toBe(200)
    expect((await callApi(base, 'overview', undefined, { Authorization: `bearer ${KEY}` })).status).toBe(200)
    for (const header of [
      `Bearer ${KEY}x`,
      `Bearer ${KEY.slice(0, -1)}`,
      `Basic ${KEY}`,
      KEY,
      'Bearer',
      `Bearer  `,
      `Bearer ${KEY.toUpperCase()}`,
    ]) {
      const r = await callApi(base, 'overview', undefined, { Authorization: header })
      expect(r.status, header).toBe(401)
    }
  })

  it('compares in constant time: timingSafeEqual on two 32-byte digests, whatever the lengths given', async () => {
    spy.mockClear()
    await callApi(base, 'overview', undefined, { Authorization: 'Bearer x' })
    await callApi(base, 'overview', undefined, { Authorization: `Bearer ${'y'.repeat(500)}` })
    await callApi(base, 'overview', undefined, auth)
    expect(spy).toHaveBeenCalledTimes(3)
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32)
      expect((b as Buffer).length).toBe(32)
    }
    expect(spy.mock.results.map((r) => r.value)).toEqual([false, false, true])
  })

  it('the app token does not make a non-loopback server trust anyone', async () => {
    const token = await fetchAppToken(base, auth)
    const r = await callApi(
      base,
      'setSecrets',
      { secrets: [{ encoding: 'hex', value: PRIMARY }] },
      { ...auth, 'X-Bijotel-App-Token': token },
    )
    expect(r.status).toBe(403)
    expectErrorBody(r.text, 'forbidden')
  })

  it('does not check Host when listening beyond loopback (the key protects it)', async () => {
    const r = await rawRequest(port, {
      method: 'POST',
      path: '/api/call/overview',
      headers: { ...auth, Host: 'auditor.example:1234' },
    })
    expect(r.status).toBe(200)
  })
})

describe('the local app (loopback)', () => {
  let base: string
  let port: number
  let token: string

  beforeAll(async () => {
    const s = await serve({ staticDir })
    base = s.base
    port = s.server.port
    token = await fetchAppToken(base)
  })

  it('gets a fresh random token per start, injected into index.html', async () => {
    const other = await serve({ staticDir })
    const t2 = await fetchAppToken(other.base)
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(t2).not.toBe(token)
    expect(await fetchAppToken(base)).toBe(token)
  })

  it('setSecrets: refused without the token or with a wrong one, accepted with it; the secret never comes back', async () => {
    const body = { secrets: [{ encoding: 'hex', value: PRIMARY }] }
    const none = await callApi(base, 'setSecrets', body)
    expect(none.status).toBe(403)
    expectErrorBody(none.text, 'forbidden')
    const wrong = await callApi(base, 'setSecrets', body, {
      'X-Bijotel-App-Token': token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'),
    })
    expect(wrong.status).toBe(403)
    const ok = await callApi(base, 'setSecrets', body, { 'X-Bijotel-App-Token': token })
    expect(ok.status).toBe(200)
    const seen = [
      ok.text,
      (await callApi(base, 'listKeys')).text,
      (await callApi(base, 'appInfo')).text,
      (await callApi(base, 'overview')).text,
      (await http(`${base}/health`)).text,
      (await http(`${base}/chain?limit=2`)).text,
      (
        await callApi(
          base,
          'setSecrets',
          { secrets: [{ encoding: 'hex', value: PRIMARY + 'zz' }] },
          { 'X-Bijotel-App-Token': token },
        )
      ).text,
    ]
    for (const t of seen) expect(t.toLowerCase()).not.toContain(PRIMARY.toLowerCase())
  })

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `127.0.0.1:${port + 1}`,
      `127.0.0.1.evil.example:${port}`,
    ]) {
      const r = await rawRequest(port, { path: '/health', headers: { Host: host } })
      expect(r.status, host).toBe(403)
      expectErrorBody(r.text, 'forbidden')
    }
    // HTTP/1.0 without any Host header
    const noHost = await new Promise<string>((done, fail) => {
      const sock = connect(port, '127.0.0.1', () => sock.end('GET /health HTTP/1.0\r\n\r\n'))
      let out = ''
      sock.on('data', (d) => (out += d.toString('utf8')))
      sock.on('end', () => done(out))
      sock.on('error', fail)
    })
    expect(noHost).toMatch(/^HTTP\/1\.[01] 403 /)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await rawRequest(port, { path: '/health', headers: { Host: host } })).status, host).toBe(200)
    }
    // index.html (and its token) is not served to a rebinding page either
    const page = await rawRequest(port, { path: '/', headers: { Host: `evil.example:${port}` } })
    expect(page.status).toBe(403)
    expect(page.text).not.toContain(token)
  })

  it('refuses POSTs from another Origin (CSRF); allows its own origin and no Origin', async () => {
    for (const origin of [
      'http://evil.example',
      `http://localhost:${port + 1}`,
      'null',
      `https://127.0.0.1:${port}`,
    ]) {
      const r = await callApi(base, 'overview', undefined, { Origin: origin })
      expect(r.status, origin).toBe(403)
      expectErrorBody(r.text, 'forbidden')
      expect(
        (await http(`${base}/chain/verify`, { method: 'POST', headers: { Origin: origin } })).status,
      ).toBe(403)
    }
    expect((await callApi(base, 'overview', undefined, { Origin: `http://127.0.0.1:${port}` })).status).toBe(
      200,
    )
    expect((await callApi(base, 'overview')).status).toBe(200)
    const viaLocalhost = await rawRequest(port, {
      method: 'POST',
      path: '/api/call/overview',
      headers: { Host: `localhost:${port}`, Origin: `http://localhost:${port}` },
    })
    expect(viaLocalhost.status).toBe(200)
  })

  it('sends no CORS headers, and answers no preflight', async () => {
    const pre = await rawRequest(port, {
      method: 'OPTIONS',
      path: '/api/call/overview',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(pre.status).toBe(403)
    expect((await rawRequest(port, { method: 'OPTIONS', path: '/api/call/overview' })).status).toBe(405)
    const replies = [
      pre,
      await rawRequest(port, { path: '/chain', headers: { Origin: 'http://evil.example' } }),
      await rawRequest(port, { path: '/' }),
    ]
    for (const r of replies) {
      for (const h of Object.keys(r.headers)) expect(h.startsWith('access-control-')).toBe(false)
    }
  })
})

describe('requests and errors', () => {
  let base: string
  let port: number

  beforeAll(async () => {
    const s = await serve()
    base = s.base
    port = s.server.port
  })

  const post = (path: string, body: string | Uint8Array, type = 'application/json') =>
    http(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': type },
      body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    })

  it('400 for malformed JSON and invalid UTF-8; 415 for bodies not declared JSON', async () => {
    const bad = await post('/api/call/getEntry', '{"seq": 1')
    expect(bad.status).toBe(400)
    expectErrorBody(bad.text, 'bad_request')
    expect(bad.json).toMatchObject({ error: expect.stringContaining('malformed JSON') })
    expect((await post('/api/call/getEntry', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).status).toBe(400)
    expect((await post('/replay/verify', 'nope')).status).toBe(400)
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const r = await post('/api/call/getEntry', '{"seq":1}', type)
      expect(r.status, type).toBe(415)
      expectErrorBody(r.text, 'bad_request')
    }
    const untyped = await rawRequest(port, {
      method: 'POST',
      path: '/api/call/getEntry',
      headers: { 'Content-Length': '9' },
      body: '{"seq":1}',
    })
    expect(untyped.status).toBe(415)
    expect((await post('/api/call/getEntry', '{"seq":1}', 'application/json; charset=utf-8')).status).toBe(
      200,
    )
    // A call without a request may have no body at all.
    expect((await http(`${base}/api/call/overview`, { method: 'POST' })).status).toBe(200)
  })

  it('413 over 1 MiB for JSON calls; checkReplay takes up to 96 MiB', async () => {
    const big = JSON.stringify({ seq: 1, pad: 'x'.repeat(1024 * 1024) })
    const r = await post('/api/call/getEntry', big)
    expect(r.status).toBe(413)
    expectErrorBody(r.text, 'bad_request')
    expect((await post('/chain/verify', big)).status).toBe(413)
    // Chunked, no Content-Length: still cut at the limit.
    const chunked = await http(`${base}/api/call/getEntry`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
    const replay = JSON.stringify({ seq: 1, text: 'y'.repeat(3 * 1024 * 1024) })
    const ok = await post('/api/call/checkReplay', replay)
    expect(ok.status).toBe(200)
    expect(
      (await post('/replay/verify', JSON.stringify({ seq: 1, replayed_output: 'y'.repeat(3 * 1024 * 1024) })))
        .status,
    ).toBe(200)
    // Declared over 96 MiB: refused before reading.
    const huge = await rawRequest(port, {
      method: 'POST',
      path: '/api/call/checkReplay',
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(97 * 1024 * 1024) },
      body: '{"seq":1,',
    })
    expect(huge.status).toBe(413)
    // The server still answers afterwards.
    expect((await http(`${base}/health`)).status).toBe(200)
  })

  it('404 for unknown routes and calls, 405 for wrong methods, always JSON {error, code}', async () => {
    for (const [method, path, status] of [
      ['GET', '/nope', 404],
      ['GET', '/', 404], // no static folder: nothing at /
      ['POST', '/api/call/nope', 404],
      ['POST', '/api/call/__proto__', 404],
      ['POST', '/api/call/constructor', 404],
      ['GET', '/api/nope', 404],
      ['GET', '/api/jobs/no-such-job/events', 404],
      ['GET', '/api/call/overview', 405],
      ['POST', '/integrity', 405],
      ['GET', '/replay/verify', 405],
      ['DELETE', '/chain', 405],
    ] as const) {
      const r = await rawRequest(port, { method, path, headers: { 'Content-Type': 'application/json' } })
      expect(r.status, `${method} ${path}`).toBe(status)
      expect(r.headers['content-type']).toMatch(/^application\/json/)
      expectErrorBody(r.text)
    }
  })

  it('JSON replies carry nosniff, no-store and a deny-all CSP', async () => {
    const r = await http(`${base}/api/call/overview`, { method: 'POST' })
    expect(r.headers.get('x-content-type-options')).toBe('nosniff')
    expect(r.headers.get('cache-control')).toBe('no-store')
    expect(r.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
    expect(r.headers.get('x-frame-options')).toBe('DENY')
  })
})

describe('static files', () => {
  let base: string
  let port: number
  const site = join(tmp.dir, 'site2')

  beforeAll(async () => {
    fakeRenderer(site)
    writeFileSync(join(tmp.dir, 'outside.txt'), 'OUTSIDE-SECRET\n')
    mkdirSync(join(site, 'nested'), { recursive: true })
    symlinkSync(join(tmp.dir, 'outside.txt'), join(site, 'nested', 'link.txt'))
    symlinkSync(tmp.dir, join(site, 'up'))
    const s = await serve({ staticDir: site })
    base = s.base
    port = s.server.port
  })

  it('serves index.html with the renderer CSP as a header, nosniff and frame-ancestors none', async () => {
    const r = await http(`${base}/`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(r.headers.get('content-security-policy')).toBe(RENDERER_CSP)
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(r.headers.get('x-content-type-options')).toBe('nosniff')
    expect(r.headers.get('cache-control')).toBe('no-store')
    expect(r.text).toMatch(/<head>\n\s+<meta name="bijotel-app-token" content="[A-Za-z0-9_-]{43}" \/>/)
    // The header is the renderer's own policy, word for word.
    const html = readFileSync(resolve(REPO_ROOT, 'src/renderer/index.html'), 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)
    expect(meta?.[1]).toBe(RENDERER_CSP)
  })

  it('serves assets with their types and index.html for client routes; a missing asset is 404', async () => {
    const js = await http(`${base}/assets/index-abc.js`)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('content-security-policy')).toBe(RENDERER_CSP)
    expect(js.text).toBe('console.log("app")\n')
    expect((await http(`${base}/assets/style.css`)).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    )
    const route = await http(`${base}/entries/42`)
    expect(route.status).toBe(200)
    expect(route.text).toContain('bijotel-app-token')
    // Relative asset links resolved from a client route still find the asset.
    expect((await http(`${base}/entries/assets/index-abc.js`)).text).toBe('console.log("app")\n')
    expect((await http(`${base}/a/b/assets/style.css`)).status).toBe(200)
    const missing = await http(`${base}/assets/missing.js`)
    expect(missing.status).toBe(404)
    expectErrorBody(missing.text, 'not_found')
    const head = await rawRequest(port, { method: 'HEAD', path: '/' })
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
  })

  it('never serves a file from outside the folder', async () => {
    for (const path of [
      '/../outside.txt',
      '/../../../../etc/passwd',
      '/%2e%2e/outside.txt',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/assets/..%2f..%2foutside.txt',
      '/assets/%2e%2e/%2e%2e/outside.txt',
      '/..%5coutside.txt',
      '/nested/link.txt',
      '/up/outside.txt',
      '/%00',
      '/%',
      '//etc/passwd',
      '/' + encodeURIComponent(join(tmp.dir, 'outside.txt')),
    ]) {
      const r = await rawRequest(port, { path })
      expect(r.text, path).not.toContain('OUTSIDE-SECRET')
      expect(r.text, path).not.toContain('root:')
      expect([200, 400, 404], path).toContain(r.status)
      if (r.status === 200) expect(r.text, path).toContain('bijotel-app-token') // the app, for a client route
    }
  })
})
