// Requests a browser never sends but a local client can, written byte for byte (a raw socket):
// an absolute-form target naming another authority (RFC 9112 §3.2.2: the target's authority, not
// the Host field, is the request's), two Host fields (RFC 9112 §3.2: 400), and JSON objects naming
// a field twice (RFC 8259 §4: receivers differ). Generated over authorities, letter cases, header
// orders, nesting depths and escapes. On the old code `GET http://evil.example/ HTTP/1.1` with a
// loopback Host got the page and its app token, a second Host field was ignored, and
// `{"seq": 1, "seq": 999}` was read as seq 999.
import { connect } from 'node:net'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { dbPath } from '../testing/fixtures'
import { duplicateKey } from '../../../src/main/base/json-keys'
import { mulberry32 } from '../testing/prng'
import { serveForSuite } from '../testing/served'

const served = serveForSuite({ prefix: 'bijotel-request-edges-', open: undefined })

/** The raw reply to `request`: its status and its body. */
function raw(request: string, port = new URL(served.base).port): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1')
    let data = ''
    s.setEncoding('latin1')
    s.on('data', (c: string) => (data += c))
    s.on('end', () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0)
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) })
    })
    s.on('error', reject)
    s.write(request)
  })
}

function host(): string {
  return new URL(served.base).host
}

describe('absolute-form targets: the authority in the target must be this server', () => {
  const rnd = mulberry32(34)
  const foreign = [
    'evil.example',
    'evil.example:80',
    '127.0.0.1.evil.example',
    'localhost.evil.example',
    '127.0.0.2',
    '[::2]',
    'user@127.0.0.1',
  ]
  it('a foreign authority is refused whatever the Host field says', async () => {
    for (let i = 0; i < 40; i++) {
      let authority = foreign[Math.floor(rnd() * foreign.length)]!
      if (!authority.includes(':') && !authority.includes(']') && rnd() < 0.5)
        authority += `:${new URL(served.base).port}`
      if (rnd() < 0.3) authority = authority.toUpperCase()
      const scheme = rnd() < 0.2 ? 'HTTP' : 'http'
      const path = ['/', '/chain', '/api/call/listKeys', '/health?x=1', '/index.html'][Math.floor(rnd() * 5)]!
      const r = await raw(
        `GET ${scheme}://${authority}${path} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`,
      )
      expect(r.status, `${authority}${path}`).toBe(403)
      expect(r.body).not.toMatch(/bijotel-app-token/)
    }
  })
  it('this server named in the target is served (the Host field then does not matter)', async () => {
    const r = await raw(
      `GET http://${host()}/version HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`,
    )
    expect(r.status).toBe(200)
  })
})

describe('two Host fields', () => {
  const rnd = mulberry32(29)
  it('are refused in either order, in any letter case', async () => {
    for (let i = 0; i < 20; i++) {
      const other = ['evil.example', host(), 'localhost:1', ''][Math.floor(rnd() * 4)]!
      const fields = [`Host: ${host()}`, `${rnd() < 0.5 ? 'host' : 'HOST'}: ${other}`]
      if (rnd() < 0.5) fields.reverse()
      const path = ['/chain', '/', '/version'][Math.floor(rnd() * 3)]!
      const r = await raw(`GET ${path} HTTP/1.1\r\n${fields.join('\r\n')}\r\nConnection: close\r\n\r\n`)
      expect(r.status, fields.join(' | ')).toBe(400)
    }
  })
})

/** A random JSON value, `depth` deep at most, with a duplicated name planted when `plant`. */
function jsonWith(rnd: () => number, depth: number, plant: { left: boolean }): string {
  const r = rnd()
  if (depth === 0 || r < 0.3)
    return ['1', '"s"', 'null', 'true', '"a\\"b"', '"{\\"k\\":1}"'][Math.floor(rnd() * 6)]!
  if (r < 0.5)
    return `[${Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => jsonWith(rnd, depth - 1, plant)).join(',')}]`
  const names = ['seq', 'limit', 'x', 'a b', 'é']
  const members: string[] = []
  const used = new Set<string>()
  for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
    const name = names[Math.floor(rnd() * names.length)]!
    if (used.has(name)) continue
    used.add(name)
    members.push(`${JSON.stringify(name)}:${jsonWith(rnd, depth - 1, plant)}`)
  }
  if (plant.left && rnd() < 0.5 && members.length > 0) {
    plant.left = false
    const first = [...used][0]!
    // The same name again, written plainly or escaped.
    const again =
      rnd() < 0.5
        ? JSON.stringify(first)
        : `"\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(first).slice(2)}`
    members.push(`${again}:${jsonWith(rnd, 0, plant)}`)
  }
  return `{${members.join(',')}}`
}

describe('a JSON name given twice', () => {
  it('duplicateKey finds every planted duplicate and nothing else', () => {
    const rnd = mulberry32(8259)
    for (let i = 0; i < 2000; i++) {
      const plant = { left: rnd() < 0.5 }
      const planted = plant.left
      const text = jsonWith(rnd, 4, plant)
      JSON.parse(text)
      const found = duplicateKey(text)
      if (planted && !plant.left) expect(found, text).not.toBeNull()
      if (!planted) expect(found, text).toBeNull()
    }
  })
  it('is refused by every call and route that reads a JSON body', async () => {
    const bodies = [
      ['/api/call/getEntry', '{"seq":1,"seq":999}'],
      ['/api/call/getEntry', '{"seq":1,"\\u0073eq":2}'],
      ['/api/call/listEntries', '{"offset":0,"limit":5,"limit":1000}'],
      ['/chain/verify', '{"seq_start":1,"seq_end":2,"seq_end":240}'],
      ['/replay/verify', '{"seq":1,"replayed_output":"a","replayed_output":"b"}'],
    ]
    for (const [path, body] of bodies) {
      const r = await raw(
        `POST ${path} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nX-Bijotel-App-Token: ${served.token}\r\nContent-Length: ${Buffer.byteLength(body!)}\r\nConnection: close\r\n\r\n${body}`,
      )
      expect(r.status, `${path} ${body}`).toBe(400)
      expect(r.body).toMatch(/appears twice/)
    }
  })
})

describe('two Authorization fields', () => {
  const KEY = 'k'.repeat(24) + randomBytes(8).toString('hex')
  let server: RunningServer | null = null
  const session = new AuditSession({ initialPath: dbPath('clean') })
  beforeAll(async () => {
    server = await startServer({ session, port: 0, apiKey: KEY })
  })
  afterAll(async () => {
    await server?.close()
    session.dispose()
  })
  it('are refused whichever holds the key; one field with the key passes', async () => {
    const rnd = mulberry32(9110)
    const port = String(server!.port)
    const hostField = `127.0.0.1:${port}`
    for (let i = 0; i < 20; i++) {
      const wrong = ['Bearer nope', 'Basic eDp5', 'Bearer ', `Bearer ${KEY}x`][Math.floor(rnd() * 4)]!
      const fields = [
        `Authorization: Bearer ${KEY}`,
        `${rnd() < 0.5 ? 'authorization' : 'AUTHORIZATION'}: ${wrong}`,
      ]
      if (rnd() < 0.5) fields.reverse()
      const r = await raw(
        `GET /chain HTTP/1.1\r\nHost: ${hostField}\r\n${fields.join('\r\n')}\r\nConnection: close\r\n\r\n`,
        port,
      )
      expect(r.status, fields.join(' | ')).toBe(401)
    }
    const ok = await raw(
      `GET /chain HTTP/1.1\r\nHost: ${hostField}\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
      port,
    )
    expect(ok.status).not.toBe(401)
  })
})
