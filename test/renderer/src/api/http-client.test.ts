// The web transport against the real `bijotel serve` server: every call generated from API_CALLS,
// errors as ApiCallError with the server's code, the app token, and subscribeJob over SSE and by
// polling.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { API_CALLS } from '../../../../src/shared/contract'
import type { JobStatus } from '../../../../src/shared/job-types'
import { AuditSession } from '../../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../../src/main/server/index'
import { fakeRenderer, fetchAppToken, tempDir } from '../../../main/server/testkit'
import { dbPath, fingerprintFolder, SECRETS } from '../../../main/testing/fixtures'
import {
  ApiCallError,
  createHttpClient,
  readAppToken,
  subscribeJob,
} from '../../../../src/renderer/src/api/http-client'

const before = fingerprintFolder()
const tmp = tempDir('bijotel-client-')
let session: AuditSession
let server: RunningServer
let base: string
let token: string

beforeAll(async () => {
  session = new AuditSession({ initialPath: dbPath('clean') })
  await session.open(dbPath('clean'))
  server = await startServer({ session, port: 0, staticDir: fakeRenderer(join(tmp.dir, 'site')) })
  base = server.url.replace(/\/$/, '')
  token = await fetchAppToken(base)
})

afterAll(async () => {
  await server.close()
  session.dispose()
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

/** Just enough of EventSource for the client, over fetch (Node 20 has none). */
class FetchEventSource {
  static opened: string[] = []
  onerror: ((e: Event) => void) | null = null
  private listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>()
  private ctrl = new AbortController()
  constructor(url: string) {
    FetchEventSource.opened.push(url)
    void this.run(new URL(url, base).toString())
  }
  addEventListener(name: string, fn: (e: MessageEvent<string>) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn])
  }
  close(): void {
    this.ctrl.abort()
  }
  private async run(url: string): Promise<void> {
    try {
      const res = await fetch(url, { signal: this.ctrl.signal })
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
      const reader = res.body.getReader()
      const dec = new TextDecoder()
      let buf = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buf += dec.decode(value, { stream: true })
        let i: number
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i)
          buf = buf.slice(i + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event && data !== undefined)
            for (const fn of this.listeners.get(event) ?? []) fn({ data } as MessageEvent<string>)
        }
      }
      throw new Error('stream ended') // a real EventSource reports this as an error, then reconnects
    } catch {
      if (!this.ctrl.signal.aborted) this.onerror?.(new Event('error'))
    }
  }
}

function follow(
  id: string,
  opts: Parameters<typeof subscribeJob>[2],
): Promise<{ all: JobStatus[]; errors: Error[] }> {
  return new Promise((resolve) => {
    const all: JobStatus[] = []
    const errors: Error[] = []
    subscribeJob(
      id,
      (s) => {
        all.push(s)
        if (s.state !== 'running') resolve({ all, errors })
      },
      {
        ...opts,
        onError: (e) => {
          errors.push(e)
          if (errors.length >= 5 || (e as ApiCallError).code === 'not_found') resolve({ all, errors })
        },
      },
    )
  })
}

describe('createHttpClient', () => {
  it('has every call of the contract', () => {
    const api = createHttpClient({ baseUrl: base, appToken: null })
    for (const name of API_CALLS) expect(typeof api[name], name).toBe('function')
    expect(Object.keys(api).sort()).toEqual([...API_CALLS].sort())
  })

  it('calls POST /api/call/<name> with the request as JSON and returns the value', async () => {
    const api = createHttpClient({ baseUrl: base, appToken: null })
    expect(await api.appInfo()).toMatchObject({ transport: 'http', has_dialogs: false })
    expect(await api.overview()).toMatchObject({ entries: 240 })
    const page = await api.listEntries({ offset: 0, limit: 3, sort: 'seq_desc' })
    expect(page.rows.map((r) => r.seq)).toEqual([240, 239, 238])
    expect(await api.getEntry({ seq: 2 })).toMatchObject({ seq: 2 })
  })

  it('sends exactly the contract request, the token header and an optional bearer key', async () => {
    const seen: { url: string; init: RequestInit }[] = []
    const fakeFetch = (async (url: string, init: RequestInit) => {
      seen.push({ url, init })
      return new Response('null', { status: 200, headers: { 'Content-Type': 'application/json' } })
    }) as unknown as typeof fetch
    const api = createHttpClient({
      baseUrl: 'http://x.test/',
      appToken: 'tok',
      apiKey: 'k'.repeat(20),
      fetch: fakeFetch,
    })
    await api.closeChain()
    await api.getEntry({ seq: 9 })
    expect(seen.map((s) => [s.url, s.init.method, s.init.body])).toEqual([
      ['http://x.test/api/call/closeChain', 'POST', '{}'],
      ['http://x.test/api/call/getEntry', 'POST', '{"seq":9}'],
    ])
    expect(seen[0]!.init.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Bijotel-App-Token': 'tok',
      Authorization: `Bearer ${'k'.repeat(20)}`,
    })
  })

  it('throws ApiCallError with the server code and status', async () => {
    const api = createHttpClient({ baseUrl: base, appToken: null })
    const e1 = await api.getEntry({ seq: 99999 }).catch((e: unknown) => e)
    expect(e1).toBeInstanceOf(ApiCallError)
    expect(e1).toMatchObject({ message: 'chain entry seq=99999 not found', code: 'not_found', status: 404 })
    const e2 = await api
      .setSecrets({ secrets: [{ encoding: 'hex', value: SECRETS['primary']! }] })
      .catch((e: unknown) => e)
    expect(e2).toMatchObject({ code: 'forbidden', status: 403 })
    const e3 = await api.listEntries({ offset: -1, limit: 1 }).catch((e: unknown) => e)
    expect(e3).toMatchObject({ code: 'bad_request', status: 400 })
    const down = createHttpClient({ baseUrl: 'http://127.0.0.1:1', appToken: null })
    expect(await down.overview().catch((e: unknown) => e)).toMatchObject({ code: 'unavailable', status: 0 })
  })

  it('with the page token, setSecrets is accepted and only fingerprints come back', async () => {
    const api = createHttpClient({ baseUrl: base, appToken: token })
    const keys = await api.setSecrets({ secrets: [{ encoding: 'hex', value: SECRETS['primary']! }] })
    expect(keys).toEqual([
      expect.objectContaining({ index: 0, encoding: 'hex', bytes: SECRETS['primary']!.length / 2 }),
    ])
    expect(JSON.stringify(keys)).not.toContain(SECRETS['primary']!)
  })

  it('readAppToken reads the meta tag the server injects', async () => {
    const html = await (await fetch(`${base}/`)).text()
    const doc = {
      querySelector: (sel: string) => {
        expect(sel).toBe('meta[name="bijotel-app-token"]')
        const m = /<meta name="bijotel-app-token" content="([^"]+)"/.exec(html)
        return m ? { getAttribute: (a: string) => (a === 'content' ? m[1]! : null) } : null
      },
    } as unknown as Document
    expect(readAppToken(doc)).toBe(token)
    expect(readAppToken({ querySelector: () => null } as unknown as Document)).toBeNull()
    expect(readAppToken(undefined)).toBeNull()
  })
})

describe('subscribeJob', () => {
  const api = () => createHttpClient({ baseUrl: base, appToken: token })

  it('follows a job over Server-Sent Events to its final status', async () => {
    await api().setSecrets({ secrets: [{ encoding: 'hex', value: SECRETS['primary']! }] })
    const job = await api().startVerify({})
    FetchEventSource.opened = []
    const { all } = await follow(job.id, {
      baseUrl: base,
      client: api(),
      EventSource: FetchEventSource as unknown as typeof EventSource,
    })
    expect(FetchEventSource.opened).toEqual([`${base}/api/jobs/${job.id}/events`])
    const last = all[all.length - 1]!
    expect(last).toMatchObject({ id: job.id, state: 'done', result: { valid: true, entries: 240 } })
    expect(all.slice(0, -1).every((s) => s.state === 'running')).toBe(true)
  })

  it('polls jobStatus when there is no EventSource', async () => {
    const job = await api().startVerify({})
    const client = api()
    const spy = vi.spyOn(client, 'jobStatus')
    const { all } = await follow(job.id, { client, EventSource: null, intervalMs: 20 })
    expect(spy).toHaveBeenCalled()
    expect(all[all.length - 1]).toMatchObject({ id: job.id, state: 'done' })
  })

  it('falls back to polling when the stream is refused, and reports an unknown job', async () => {
    const { all, errors } = await follow('no-such-job', {
      baseUrl: base,
      client: api(),
      EventSource: FetchEventSource as unknown as typeof EventSource,
      intervalMs: 10,
    })
    expect(all).toEqual([])
    expect(errors[0]).toMatchObject({ code: 'not_found' })
  })

  it('the returned function stops following', async () => {
    await api().setSecrets({ secrets: [{ encoding: 'hex', value: SECRETS['primary']! }] })
    const job = await api().startVerify({})
    const seen: JobStatus[] = []
    const stop = subscribeJob(job.id, (s) => seen.push(s), {
      client: api(),
      EventSource: null,
      intervalMs: 5,
    })
    stop()
    await new Promise((r) => setTimeout(r, 100))
    expect(seen.length).toBeLessThanOrEqual(1)
  })
})

describe('api/index', () => {
  it('uses HTTP without a preload, and the preload API when window.bijotel.api exists', async () => {
    vi.resetModules()
    const web = await import('../../../../src/renderer/src/api/index')
    expect(web.transport).toBe('http')
    const fake = Object.fromEntries(
      API_CALLS.map((n) => [n, vi.fn(async () => (n === 'jobStatus' ? { id: 'j', state: 'done' } : null))]),
    )
    vi.stubGlobal('window', { bijotel: { api: fake } })
    try {
      vi.resetModules()
      const desktop = await import('../../../../src/renderer/src/api/index')
      expect(desktop.transport).toBe('ipc')
      expect(desktop.api).toBe(fake)
      const final = await new Promise<JobStatus>((resolve) =>
        desktop.subscribeJob('j', (s) => s.state !== 'running' && resolve(s)),
      )
      expect(final).toMatchObject({ id: 'j', state: 'done' })
      expect(fake['jobStatus']).toHaveBeenCalledWith({ id: 'j' })
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
