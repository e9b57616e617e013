// Web mode's main → renderer events (`GET /api/events`, src/shared/app-events.ts) over real HTTP:
// the stream starts with the chain the engine holds and then tells every change, whichever client
// made it, with the new chain's path and SHA-256 (null when closed).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APP_EVENTS_PATH } from '../../../src/shared/app-events'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { dbPath, FIXTURES, fingerprintFolder } from '../testing/fixtures'
import { callApi, http, readSse, type SseEvent } from './testkit'

const before = fingerprintFolder()
let server: RunningServer
let session: AuditSession
let base: string

const sha = (name: string): string =>
  createHash('sha256')
    .update(readFileSync(dbPath(name)))
    .digest('hex')

beforeAll(async () => {
  session = new AuditSession({})
  await session.open(dbPath('clean'))
  server = await startServer({ session, port: 0, openRoots: [FIXTURES] })
  base = server.url.replace(/\/$/, '')
})

afterAll(async () => {
  await server.close()
  session.dispose()
  expect(fingerprintFolder()).toEqual(before)
})

describe('GET /api/events', () => {
  it('starts with the chain held, then tells each open and the close made by another client', async () => {
    const seen: SseEvent[] = []
    const stream = readSse(base + APP_EVENTS_PATH, {
      onEvent: (e) => {
        seen.push(e)
        // Another client (not this page) changes the chain once the page is listening.
        if (seen.length === 1) void callApi(base, 'openChain', { path: dbPath('rotation') })
        if (seen.length === 2) void callApi(base, 'closeChain')
      },
      until: () => seen.length === 3,
    })
    const { status, contentType, events } = await stream
    expect(status).toBe(200)
    expect(contentType).toMatch(/^text\/event-stream/)
    expect(events.map((e) => e.event)).toEqual(['chainChanged', 'chainChanged', 'chainChanged'])
    const [first, opened, closed] = events.map((e) => (e.data as { chain: unknown }).chain)
    expect(first).toEqual({ open_id: 1, path: dbPath('clean'), sha256: sha('clean') })
    expect(opened).toEqual({ open_id: 2, path: dbPath('rotation'), sha256: sha('rotation') })
    expect(closed).toBeNull()
  })

  it('a page that connects with no chain open learns that at once', async () => {
    const { events } = await readSse(base + APP_EVENTS_PATH, { until: () => true })
    expect(events[0]).toMatchObject({ event: 'chainChanged', data: { chain: null } })
  })

  it('is read with GET only', async () => {
    const r = await http(base + APP_EVENTS_PATH, { method: 'POST' })
    expect(r.status).toBe(405)
  })
})

describe('GET /api/events with an API key', () => {
  it('needs the bearer key like every other route', async () => {
    const s = new AuditSession({})
    const keyed = await startServer({ session: s, port: 0, apiKey: 'k'.repeat(32) })
    try {
      const url = keyed.url.replace(/\/$/, '') + APP_EVENTS_PATH
      expect((await http(url)).status).toBe(401)
      const { status, events } = await readSse(url, {
        headers: { Authorization: `Bearer ${'k'.repeat(32)}` },
        until: () => true,
      })
      expect(status).toBe(200)
      expect(events[0]).toMatchObject({ event: 'chainChanged', data: { chain: null } })
    } finally {
      await keyed.close()
      s.dispose()
    }
  })
})
