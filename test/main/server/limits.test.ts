// What one local client may take from the server, over real sockets on loopback against the server
// object: the connection cap (one more is answered 503 at once), the body-bytes budget across
// requests, header and body timeouts (a body under the minimum rate is cut after the grace period,
// one that keeps the rate is not), idle keep-alive, header size and the event-stream cap. Timings
// use small limits so each case is bounded to a few seconds; the defaults are checked against
// docs/server.md, and limits.cli.test.ts runs the defaults in a real `bijotel serve`.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { DEFAULT_LIMITS, resolveLimits, type ServerLimits } from '../../../src/main/server/limits'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, fingerprintFolder, REPO_ROOT, secretInputs } from '../testing/fixtures'
import { http } from './testkit'
import { chunk, LAST_CHUNK, postHead, rawClient, sleep, type RawClient } from './sockets'

const before = fingerprintFolder()
let session: AuditSession
const servers: RunningServer[] = []
const clients: RawClient[] = []

async function serve(limits: Partial<ServerLimits> = {}): Promise<RunningServer> {
  const server = await startServer({ session, port: 0, limits })
  servers.push(server)
  return server
}

function client(port: number): RawClient {
  const c = rawClient(port)
  clients.push(c)
  return c
}

/** A listEntries request padded to `bytes` (the handler ignores the extra field). */
function listBody(bytes: number): Buffer {
  const start = '{"offset":0,"limit":1,"pad":"'
  const end = '"}'
  return Buffer.from(start + 'x'.repeat(bytes - start.length - end.length) + end)
}

beforeAll(async () => {
  session = new AuditSession({ initialPath: dbPath('clean') })
  await session.open(dbPath('clean'))
  // After the open: keys belong to the chain they are given for (issue 35).
  session.keys = parseSecrets(secretInputs(['primary']))
})

afterAll(async () => {
  for (const c of clients) c.destroy()
  for (const s of servers) await s.close()
  session.dispose()
  expect(fingerprintFolder()).toEqual(before)
})

describe('the limits', () => {
  it('are positive integers; the defaults are the values docs/server.md states', () => {
    expect(() => resolveLimits({ maxConnections: 0 })).toThrow(/maxConnections/)
    expect(() => resolveLimits({ bodyGraceMs: 1.5 })).toThrow(/bodyGraceMs/)
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'server.md'), 'utf8')
    for (const [name, value] of Object.entries(DEFAULT_LIMITS)) {
      const row = new RegExp(`^\\|[^\\n]*\`${name}\`[^\\n]*\\|\\s*${value}\\b`, 'm')
      expect(docs, `docs/server.md has a row for ${name} = ${value}`).toMatch(row)
    }
  })
})

describe('connections', () => {
  it(`at most ${DEFAULT_LIMITS.maxConnections} at once: one more is answered 503 and closed at once, not queued`, async () => {
    const server = await serve()
    const held: RawClient[] = []
    for (let i = 0; i < DEFAULT_LIMITS.maxConnections; i++) held.push(client(server.port))
    await Promise.all(held.map((c) => c.connected))
    await sleep(100) // the server has accepted them all
    const extra = client(server.port)
    const reply = await extra.reply
    expect(reply?.status).toBe(503)
    expect(reply?.json).toMatchObject({
      code: 'unavailable',
      error: expect.stringContaining('too many connections'),
    })
    expect(reply?.headers['retry-after']).toBe('1')
    expect(reply!.at).toBeLessThan(2000)
    expect(await extra.closed).toBeLessThan(3000)

    // The held connections still work.
    held[0]!.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    expect((await held[0]!.reply)?.status).toBe(200)

    // One closes: a new connection is taken again.
    held[1]!.destroy()
    let status = 0
    for (let i = 0; i < 40 && status !== 200; i++) {
      await sleep(50)
      status = (await http(`${server.url}health`).catch(() => ({ status: 0 }))).status
    }
    expect(status).toBe(200)
  })
})

describe('header and body timeouts', () => {
  it('headers not complete within headersTimeoutMs: 408 and closed; a silent connection is closed', async () => {
    const server = await serve({ headersTimeoutMs: 1000 })
    const partial = client(server.port)
    partial.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`)
    const silent = client(server.port)
    const reply = await partial.reply
    expect(reply?.status).toBe(408)
    expect(reply?.json).toMatchObject({ code: 'bad_request', error: expect.stringContaining('timeout') })
    expect(reply!.at).toBeGreaterThan(900)
    expect(reply!.at).toBeLessThan(4000)
    expect(await silent.closed).toBeLessThan(4000)
  })

  it(`headers over ${DEFAULT_LIMITS.maxHeaderBytes} bytes: 431`, async () => {
    const server = await serve()
    const big = client(server.port)
    big.write(
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Big: ${'a'.repeat(DEFAULT_LIMITS.maxHeaderBytes)}\r\n\r\n`,
    )
    expect((await big.reply)?.status).toBe(431)
  })

  const SLOW = { bodyGraceMs: 1000, minBodyBytesPerSecond: 1024 }

  for (const mode of ['declared', 'chunked'] as const) {
    it(`a ${mode} body under the minimum rate is cut with 408 after the grace period`, async () => {
      const server = await serve(SLOW)
      const c = client(server.port)
      c.write(postHead(server.port, '/api/call/listEntries', mode === 'chunked' ? 'chunked' : 100))
      const drip = setInterval(() => c.write(mode === 'chunked' ? chunk('{') : '{'), 200)
      try {
        const reply = await c.reply
        expect(reply?.status).toBe(408)
        expect(reply?.headers['connection']).toBe('close')
        expect(reply?.json).toMatchObject({ code: 'bad_request', error: expect.stringContaining('too slow') })
        expect(reply!.at).toBeGreaterThan(SLOW.bodyGraceMs)
        expect(reply!.at).toBeLessThan(SLOW.bodyGraceMs + 3000)
        expect(await c.closed).toBeLessThan(SLOW.bodyGraceMs + 6000)
      } finally {
        clearInterval(drip)
      }
    })
  }

  it('a body sent to a GET route is drained, and cut by the same rule', async () => {
    const server = await serve(SLOW)
    const c = client(server.port)
    c.write(`GET /version HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 1000\r\n\r\n`)
    const drip = setInterval(() => c.write('x'), 200)
    try {
      // The GET is answered at once; the connection is closed once the body falls behind.
      expect((await c.reply)?.status).toBe(200)
      expect(await c.closed).toBeLessThan(SLOW.bodyGraceMs + 6000)
    } finally {
      clearInterval(drip)
    }
  })

  it('a body that keeps the minimum rate is not cut, however long it takes', async () => {
    const server = await serve({ bodyGraceMs: 500, minBodyBytesPerSecond: 4096 })
    const body = listBody(16 * 1024)
    const c = client(server.port)
    c.write(postHead(server.port, '/api/call/listEntries', body.length))
    // 2 KiB every 250 ms: 8 KiB/s, twice the minimum; the body takes ~2 s, four times the grace.
    for (let i = 0; i < body.length; i += 2048) {
      c.write(body.subarray(i, i + 2048))
      await sleep(250)
    }
    const reply = await c.reply
    expect(reply?.status, reply?.body).toBe(200)
    expect(reply!.at).toBeGreaterThan(1500)
  })

  it('an idle keep-alive connection is closed after keepAliveTimeoutMs', async () => {
    const server = await serve({ keepAliveTimeoutMs: 500 })
    const c = client(server.port)
    c.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    const reply = await c.reply
    expect(reply?.status).toBe(200)
    const closed = await c.closed
    expect(closed - reply!.at).toBeGreaterThan(300)
    expect(closed - reply!.at).toBeLessThan(3500)
  })
})

describe('request-body bytes held at once', () => {
  it('a declared body that does not fit the budget is refused 503 before it is read; it fits once a reply is sent', async () => {
    const server = await serve({ maxBodyBytesInFlight: 1_500_000 })
    const body = listBody(800_000)
    const a = client(server.port)
    a.write(postHead(server.port, '/api/call/listEntries', body.length))
    await sleep(200) // a holds 800 000 bytes, though none has arrived yet
    const b = client(server.port)
    b.write(postHead(server.port, '/api/call/listEntries', body.length))
    const refused = await b.reply
    expect(refused?.status).toBe(503)
    expect(refused?.headers['retry-after']).toBe('2')
    expect(refused?.json).toMatchObject({
      code: 'unavailable',
      error: expect.stringContaining('MiB of request bodies'),
    })
    expect(refused!.at).toBeLessThan(2000)
    a.write(body)
    expect((await a.reply)?.status).toBe(200)
    await sleep(100)
    const c = client(server.port)
    c.write(postHead(server.port, '/api/call/listEntries', body.length))
    c.write(body)
    expect((await c.reply)?.status).toBe(200)
  })

  it('chunked bodies are charged as they arrive: the one that overflows the budget is refused', async () => {
    const server = await serve({ maxBodyBytesInFlight: 1_000_000 })
    const a = client(server.port)
    a.write(postHead(server.port, '/api/call/listEntries', 'chunked'))
    a.write(chunk(Buffer.from('{"offset":0,"limit":1,"pad":"' + 'x'.repeat(700_000))))
    await sleep(300)
    const b = client(server.port)
    b.write(postHead(server.port, '/api/call/listEntries', 'chunked'))
    b.write(chunk(Buffer.from('{"offset":0,"limit":1,"pad":"' + 'x'.repeat(400_000))))
    const refused = await b.reply
    expect(refused?.status).toBe(503)
    a.write(chunk('"}'))
    a.write(LAST_CHUNK)
    expect((await a.reply)?.status).toBe(200)
  })

  it('a client that leaves mid-body gives its share back', async () => {
    const server = await serve({ maxBodyBytesInFlight: 2_000_000 })
    const a = client(server.port)
    a.write(postHead(server.port, '/api/call/checkReplay', 1_500_000))
    await sleep(200)
    const b = client(server.port)
    b.write(postHead(server.port, '/api/call/checkReplay', 1_500_000))
    expect((await b.reply)?.status).toBe(503)
    a.destroy()
    await sleep(200)
    const c = client(server.port)
    const text = 'x'.repeat(1_500_000 - '{"seq":1,"text":""}'.length)
    c.write(postHead(server.port, '/api/call/checkReplay', 1_500_000))
    c.write(`{"seq":1,"text":"${text}"}`)
    expect((await c.reply)?.status).toBe(200)
  })
})

describe('event streams', () => {
  it(`at most maxEventStreams at once (default ${DEFAULT_LIMITS.maxEventStreams}): one more is 503; a closed one frees its place`, async () => {
    const server = await serve({ maxEventStreams: 2 })
    let release!: () => void
    const held = new Promise<null>((r) => (release = () => r(null)))
    const job = session.jobs.start('hold', () => held)
    const open = (): RawClient => {
      const c = client(server.port)
      c.write(`GET /api/jobs/${job.id}/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
      return c
    }
    try {
      const s1 = open()
      const s2 = open()
      expect(await s1.head).toMatch(/^HTTP\/1\.1 200/)
      expect(await s2.head).toMatch(/^HTTP\/1\.1 200/)
      const s3 = open()
      const refused = await s3.reply
      expect(refused?.status).toBe(503)
      expect(refused?.json).toMatchObject({
        code: 'unavailable',
        error: expect.stringContaining('event streams'),
      })
      s1.destroy()
      let head: string | null = null
      for (let i = 0; i < 40; i++) {
        await sleep(50)
        head = await open().head
        if (head?.startsWith('HTTP/1.1 200')) break
      }
      expect(head).toMatch(/^HTTP\/1\.1 200/)
    } finally {
      release()
    }
  })
})

describe('long work', () => {
  it(`at most maxHeavyWork at once (default ${DEFAULT_LIMITS.maxHeavyWork}), counting running jobs: one more is 503, light calls still answer`, async () => {
    const server = await serve({ maxHeavyWork: 2 })
    const base = server.url.replace(/\/$/, '')
    let release!: () => void
    const held = new Promise<null>((r) => (release = () => r(null)))
    session.jobs.start('hold', () => held)
    session.jobs.start('hold', () => held)
    try {
      const post = (path: string, body: unknown) =>
        http(`${base}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      const refused = [
        await post('/api/call/startVerify', {}),
        await post('/api/call/startIntegrity', {}),
        await post('/api/call/runIntegrity', { window: 10 }),
        await post('/api/call/buildReport', {}),
        await post('/api/call/openChain', { path: dbPath('clean') }),
        await post('/chain/verify', {}),
        await http(`${base}/integrity?window=10`),
      ]
      for (const r of refused) {
        expect(r.status, r.text).toBe(503)
        expect(r.json).toMatchObject({
          code: 'unavailable',
          error: expect.stringContaining('at most 2 at once'),
        })
      }
      expect((await post('/api/call/listEntries', { offset: 0, limit: 5 })).status).toBe(200)
      expect((await http(`${base}/chain?limit=5`)).status).toBe(200)
    } finally {
      release()
    }
    await sleep(50)
    expect((await http(`${base}/integrity?window=10`)).status).toBe(200)
  })
})
