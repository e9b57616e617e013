// Requests written byte for byte on a raw socket, generated over the ways a request can be framed
// oddly (RFC 9112): request lines with odd spacing, absolute-form and authority-form targets,
// obs-fold, white space before a field's colon, bare CR or LF, duplicate or conflicting
// Content-Length and Transfer-Encoding, Host with ports, IPv6, user info and trailing dots,
// pipelined requests, HTTP/1.0 keep-alive and Expect. Each is answered as a strict parser would
// (400 for a malformed message, never a 2xx), and no request without the API key ever reaches a
// route that needs it — whatever the framing, and whichever of several pipelined requests it is.
// On the old code `Expect: 100-continue` without the key got "100 Continue" (node:http's own) before
// its 401: the server asked a client it refuses for the body. A request line whose parts are
// separated by runs of spaces is read on word boundaries, as RFC 9112 §3 allows (MAY), and then
// held to every check like any other.
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { fakeRenderer, tempDir } from './testkit'

const API_KEY = 'k'.repeat(12) + 'raw-requests'
const tmp = tempDir('bijotel-raw-requests-')
let session: AuditSession
let server: RunningServer
let port = 0
beforeAll(async () => {
  session = new AuditSession({ initialPath: dbPath('clean') })
  await session.open(dbPath('clean'))
  server = await startServer({ session, port: 0, apiKey: API_KEY, staticDir: fakeRenderer(tmp.dir) })
  port = server.port
})
afterAll(async () => {
  await server.close()
  session.dispose()
  tmp.cleanup()
})

/** Every status line the server wrote on one connection, in order (pipelined requests: several). */
function send(bytes: string, waitMs = 400, replies = Infinity): Promise<number[]> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    let data = ''
    s.setEncoding('latin1')
    s.on('data', (c: string) => {
      data += c
      // All the replies asked for (final ones): no need to wait for the connection to go idle.
      if (statusesOf(data).filter((x) => x >= 200).length >= replies) done()
    })
    const done = (): void => {
      clearTimeout(timer)
      s.destroy()
      resolve(statusesOf(data))
    }
    const timer = setTimeout(done, waitMs)
    s.on('close', done)
    s.on('error', () => undefined)
    s.write(bytes)
  })
}

/** The statuses of the replies in `data`, one after another (each reply's length from its head). */
function statusesOf(data: string): number[] {
  const out: number[] = []
  let at = 0
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at)
    if (end < 0) return out
    const head = data.slice(at, end)
    const status = /^HTTP\/1\.[01] (\d{3}) /.exec(head)
    if (!status) return out
    out.push(Number(status[1]))
    const len = /\r\ncontent-length: *(\d+)/i.exec(head)
    // 1xx replies have no body; HEAD is not sent on a connection whose later replies are read.
    at = end + 4 + (Number(status[1]) >= 200 && len ? Number(len[1]) : 0)
  }
}

const host = (): string => `127.0.0.1:${port}`
const BEARER = `Authorization: Bearer ${API_KEY}`
/** Routes that need the key, with the method each takes. */
const GUARDED: [string, string][] = [
  ['POST', '/api/call/listKeys'],
  ['POST', '/api/call/overview'],
  ['GET', '/chain?limit=1'],
  ['GET', '/chain/1'],
  ['GET', '/integrity?window=10'],
  ['GET', '/'],
  ['GET', '/index.html'],
]

function request(method: string, target: string, lines: string[], body = ''): string {
  return `${method} ${target} HTTP/1.1\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`
}

describe('malformed framing is refused with 400 (RFC 9112), with or without the key', () => {
  const body = '{}'
  const json = ['Content-Type: application/json']
  const cases: [string, () => string][] = [
    [
      'a tab in the request line',
      () => `POST\t/api/call/listKeys HTTP/1.1\r\nHost: ${host()}\r\n${BEARER}\r\n\r\n`,
    ],
    [
      'a space after the version',
      () => `POST /api/call/listKeys HTTP/1.1 \r\nHost: ${host()}\r\n${BEARER}\r\n\r\n`,
    ],
    [
      'a lower-case version',
      () => `POST /api/call/listKeys http/1.1\r\nHost: ${host()}\r\n${BEARER}\r\n\r\n`,
    ],
    ['HTTP/1.2', () => `POST /api/call/listKeys HTTP/1.2\r\nHost: ${host()}\r\n${BEARER}\r\n\r\n`],
    [
      'obs-fold',
      () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, BEARER, 'X-A: a', ' folded']),
    ],
    ['space before a colon', () => request('POST', '/api/call/listKeys', [`Host : ${host()}`, BEARER])],
    [
      'tab before a colon',
      () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, `Authorization\t: Bearer ${API_KEY}`]),
    ],
    [
      'a bare CR in a value',
      () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, BEARER, 'X-A: a\rb']),
    ],
    ['a bare LF line end', () => `POST /api/call/listKeys HTTP/1.1\nHost: ${host()}\n${BEARER}\n\n`],
    [
      'a NUL in a value',
      () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, BEARER, 'X-A: a\0b']),
    ],
    [
      'two different Content-Lengths',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Content-Length: 2', 'Content-Length: 3'],
          body,
        ),
    ],
    [
      'a Content-Length list',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Content-Length: 2, 3'],
          body,
        ),
    ],
    [
      'a signed Content-Length',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Content-Length: +2'],
          body,
        ),
    ],
    [
      'Content-Length and chunked',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Content-Length: 2', 'Transfer-Encoding: chunked'],
          '2\r\n{}\r\n0\r\n\r\n',
        ),
    ],
    [
      'chunked not last',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Transfer-Encoding: chunked, identity'],
          '2\r\n{}\r\n0\r\n\r\n',
        ),
    ],
    [
      'an unknown coding',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Transfer-Encoding: xchunked'],
          '2\r\n{}\r\n0\r\n\r\n',
        ),
    ],
    [
      'a bad chunk size',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Transfer-Encoding: chunked'],
          '2x\r\n{}\r\n0\r\n\r\n',
        ),
    ],
    [
      'a chunk size with a sign',
      () =>
        request(
          'POST',
          '/api/call/listKeys',
          [`Host: ${host()}`, BEARER, ...json, 'Transfer-Encoding: chunked'],
          '+2\r\n{}\r\n0\r\n\r\n',
        ),
    ],
    [
      'a space in a field name',
      () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, BEARER, 'X A: b']),
    ],
    ['an empty field name', () => request('POST', '/api/call/listKeys', [`Host: ${host()}`, BEARER, ': b'])],
  ]
  for (const [name, make] of cases)
    it(`${name}: 400, no 2xx`, async () => {
      const statuses = await send(make())
      expect(statuses.length, name).toBeGreaterThan(0)
      expect(statuses[0], name).toBe(400)
      expect(
        statuses.some((s) => s >= 200 && s < 300),
        name,
      ).toBe(false)
    })
})

describe('without the key nothing guarded is reached, however the request is framed', () => {
  const rnd = mulberry32(606)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const hosts = (): string[] => [
    host(),
    `localhost:${port}`,
    `[::1]:${port}`,
    `127.0.0.1.:${port}`,
    `user@127.0.0.1:${port}`,
    `127.0.0.1:${port}.`,
    `127.0.0.1`,
    `LOCALHOST:${port}`,
    `127.1:${port}`,
    `0x7f.0.0.1:${port}`,
  ]
  const authFields = [
    null,
    'Authorization: Bearer',
    `Authorization: Basic ${Buffer.from(`x:${API_KEY}`).toString('base64')}`,
    `Authorization: Bearer ${API_KEY.slice(0, -1)}`,
    `Authorization: Bearer ${API_KEY}x`,
    `Authorization: Bearer  ${API_KEY.toUpperCase()}`,
    `X-Authorization: Bearer ${API_KEY}`,
    `Authorization : Bearer ${API_KEY}`,
  ]
  it('600 generated requests: every answer is a refusal (never 1xx-then-2xx, never 2xx)', async () => {
    const seen = new Map<number, number>()
    for (let i = 0; i < 600; i++) {
      const [method, path] = pick(GUARDED)
      const h = pick(hosts())
      const form = pick([
        'origin',
        'origin',
        'absolute',
        'absolute-upper',
        'asterisk',
        'double-slash',
      ] as const)
      const target =
        form === 'absolute'
          ? `http://${h}${path}`
          : form === 'absolute-upper'
            ? `HTTP://${h.toUpperCase()}${path}`
            : form === 'asterisk'
              ? '*'
              : form === 'double-slash'
                ? `//${h}${path}`
                : path
      const lines = [`Host: ${pick(hosts())}`]
      const auth = pick(authFields)
      if (auth) lines.push(auth)
      if (rnd() < 0.3)
        lines.push(pick(['Connection: keep-alive', 'Connection: close', 'Expect: 100-continue']))
      if (rnd() < 0.3) lines.push(`X-Bijotel-App-Token: ${'A'.repeat(43)}`)
      const body = method === 'POST' ? '{}' : ''
      if (body) lines.push('Content-Type: application/json', `Content-Length: ${body.length}`)
      if (rnd() < 0.5) lines.reverse()
      const version = pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0'])
      const bytes = `${method} ${target} ${version}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n${body}`
      const statuses = await send(bytes, 400, 1)
      for (const s of statuses) seen.set(s, (seen.get(s) ?? 0) + 1)
      const answered = statuses.filter((s) => s >= 200)
      expect(answered.length, bytes).toBeGreaterThan(0)
      expect(
        answered.every((s) => s >= 400),
        `${bytes} -> ${statuses.join(',')}`,
      ).toBe(true)
    }
  }, 120_000)

  it('pipelined: a keyless request after a keyed one on the same connection is refused', async () => {
    for (let i = 0; i < 40; i++) {
      const n = 2 + Math.floor(rnd() * 3)
      const keyed: boolean[] = []
      let bytes = ''
      for (let j = 0; j < n; j++) {
        const withKey = j === 0 || rnd() < 0.4
        keyed.push(withKey)
        const [method, path] = pick(GUARDED.filter(([m]) => m === 'GET'))
        bytes += request(method, path, [`Host: ${host()}`, ...(withKey ? [BEARER] : [])])
      }
      const statuses = await send(bytes, 1000, n)
      expect(statuses.length, bytes).toBe(n)
      statuses.forEach((s, j) => {
        if (!keyed[j]) expect(s, `request ${j + 1} of ${bytes}`).toBe(401)
      })
    }
  }, 60_000)

  it('a body that is a request (GET with Content-Length) is not read as one', async () => {
    const inner = request('GET', '/chain/1', [`Host: ${host()}`])
    for (const method of ['GET', 'HEAD', 'POST']) {
      const outer = request(method, '/health', [`Host: ${host()}`, `Content-Length: ${inner.length}`], inner)
      const statuses = await send(outer)
      // One answer (the outer request's), never a 2xx for the smuggled one.
      expect(
        statuses.slice(1).every((s) => s >= 400),
        `${method}: ${statuses.join(',')}`,
      ).toBe(true)
    }
  })

  it('Expect: 100-continue without the key is answered 401 before any body is asked for', async () => {
    const statuses = await send(
      request('POST', '/api/call/listKeys', [
        `Host: ${host()}`,
        'Content-Type: application/json',
        'Content-Length: 2',
        'Expect: 100-continue',
      ]),
    )
    expect(statuses[0]).toBe(401)
    // With the key the interim reply comes, then the answer.
    const keyed = await send(
      request('POST', '/api/call/listKeys', [
        `Host: ${host()}`,
        BEARER,
        'Content-Type: application/json',
        'Content-Length: 2',
        'Expect: 100-continue',
      ]),
    )
    expect(keyed[0]).toBe(100)
  })
})

describe('the Origin check names the authority the request names', () => {
  it('absolute-form target of this server, a foreign Host and that Host as Origin: refused (403)', async () => {
    for (const foreign of ['evil.example', 'evil.example:8080', `127.0.0.2:${port}`, 'localhost']) {
      const statuses = await send(
        `POST http://${host()}/api/call/listKeys HTTP/1.1\r\nHost: ${foreign}\r\n${BEARER}\r\nOrigin: http://${foreign}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      )
      expect(statuses[0], foreign).toBe(403)
    }
    // The target's own origin is this server's.
    const ok = await send(
      `POST http://${host()}/api/call/listKeys HTTP/1.1\r\nHost: evil.example\r\n${BEARER}\r\nOrigin: http://${host()}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    )
    expect(ok[0]).toBe(200)
  })
})
