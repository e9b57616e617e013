// The long-work gate covers every heavy call (issue 34): each call of the contract is classified in
// CALL_WEIGHT (src/main/server/limits.ts); over a real server whose long-work slots are all taken,
// every heavy call is refused 503 at once — whatever its request — every light call still answers,
// and the calls never taken over HTTP are 403. Then what one local client can hold is measured: a
// burst of parallel report pages on a large chain admits maxHeavyWork of them, and the memory and
// threads the server takes stay within the figures docs/server.md states.
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_CALLS } from '../../../src/shared/contract'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { CALL_WEIGHT, DEFAULT_LIMITS, HEAVY_CALLS } from '../../../src/main/server/limits'
import { parseSecrets } from '../../../src/main/chain/keys'
import { REPO_ROOT } from '../testing/fixtures'
import { callApi, http, tempDir, writeSyntheticChain } from './testkit'

const KEY = Buffer.from('heavy-gate-key-0123456789abcdef', 'utf8')
const tmp = tempDir('bijotel-heavy-gate-')
const ROWS = 20_000
let chain: string
let session: AuditSession
let server: RunningServer
let base: string

beforeAll(async () => {
  chain = join(tmp.dir, 'chain.db')
  writeSyntheticChain(chain, ROWS, KEY)
  session = new AuditSession({ initialPath: chain, openRoots: [tmp.dir] })
  await session.open(chain)
  // Keys belong to a chain (issue 35): an open clears them.
  session.keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
  server = await startServer({ session, port: 0, log: () => undefined })
  base = server.url.replace(/\/$/, '')
})

afterAll(async () => {
  await server.close()
  session.dispose()
  tmp.cleanup()
})

/** Requests for each call: an empty one and a plausible one (the gate must not depend on it). */
function requestsFor(name: string): unknown[] {
  const plausible: Record<string, unknown> = {
    openChain: { path: chain },
    runIntegrity: { window: 10 },
    startIntegrity: { window: 10 },
    checkReplay: { seq: 1, text: 'hello' },
    startSearch: { query: 'chat' },
    exportView: { format: 'csv' },
    saveViewExport: { format: 'csv' },
    startDriftSeries: { buckets: 5 },
    setPrior: { text: '{"last_seq":1,"head_hmac":"00"}' },
    checkReport: { text: '{}' },
    listEntries: { offset: 0, limit: 5 },
    getEntry: { seq: 1 },
    checkRow: { seq: 1 },
    timeline: { buckets: 10 },
    locateEntry: { seq: 1 },
    jobStatus: { id: 'none' },
    cancelJob: { id: 'none' },
    resolveTimeRange: { preset: 'whole_chain' },
  }
  return [{}, ...(name in plausible ? [plausible[name]] : [])]
}

describe('every call is classified', () => {
  it('CALL_WEIGHT names every call of the contract, and only those', () => {
    expect(Object.keys(CALL_WEIGHT).sort()).toEqual([...API_CALLS].sort())
    expect([...HEAVY_CALLS].sort()).toEqual(API_CALLS.filter((n) => CALL_WEIGHT[n] === 'heavy').sort())
  })

  it('the calls that read a whole chain or a whole document are heavy', () => {
    // Named here as well as in limits.ts: moving one of these to light must be a visible change.
    for (const n of [
      'openChain',
      'startVerify',
      'startRecover',
      'runIntegrity',
      'startIntegrity',
      'checkReplay',
      'buildReport',
      'saveReport',
      'buildReportHtml',
      'startSearch',
      'exportView',
      'saveViewExport',
      'startDriftSeries',
      'setPrior',
      'checkReport',
    ] as const)
      expect(CALL_WEIGHT[n], n).toBe('heavy')
  })
})

describe(`the gate with its ${DEFAULT_LIMITS.maxHeavyWork} slots taken`, () => {
  it('refuses the next heavy call of every kind at once (503), answers every light call, 403 for the refused', async () => {
    let release!: () => void
    const held = new Promise<null>((r) => (release = () => r(null)))
    for (let i = 0; i < DEFAULT_LIMITS.maxHeavyWork; i++) session.jobs.start('hold', () => held)
    try {
      // The reference routes that read the whole chain or a document pass the same gate.
      const post = (path: string, body: unknown) =>
        http(`${base}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      expect((await http(`${base}/chain?limit=5`)).status).toBe(200)
      expect((await post('/chain/verify', {})).status).toBe(503)
      expect((await post('/replay/verify', { seq: 1, replayed_output: 'x' })).status).toBe(503)
      expect((await http(`${base}/integrity?window=10`)).status).toBe(503)
      // closeChain last: it drops the chain the other calls read.
      const order = [...API_CALLS.filter((n) => n !== 'closeChain'), 'closeChain' as const]
      for (const name of order) {
        for (const req of requestsFor(name)) {
          const t0 = Date.now()
          const r = await callApi(base, name, req)
          const what = `${name} ${JSON.stringify(req)}: ${r.status} ${r.text.slice(0, 200)}`
          if (CALL_WEIGHT[name] === 'heavy') {
            expect(r.status, what).toBe(503)
            expect(r.json, what).toMatchObject({
              code: 'unavailable',
              error: expect.stringContaining('at most 4'),
            })
            expect(Date.now() - t0, what).toBeLessThan(1000)
          } else if (CALL_WEIGHT[name] === 'refused') {
            expect(r.status, what).toBe(403)
          } else {
            expect(r.status, what).not.toBe(503)
          }
        }
      }
    } finally {
      release()
    }
    await session.open(chain)
  })

  it('with real calls in flight: of a burst of one heavy kind, the one past the slots is refused', async () => {
    for (const name of ['buildReportHtml', 'buildReport'] as const) {
      // Three slots held by jobs, the fourth by the first call of the burst that is still running.
      let release!: () => void
      const held = new Promise<null>((r) => (release = () => r(null)))
      for (let i = 0; i < DEFAULT_LIMITS.maxHeavyWork - 1; i++) session.jobs.start('hold', () => held)
      try {
        const report = (await callApi(base, 'buildReport', {})).status
        expect(report).toBe(200)
        const replies = await Promise.all(Array.from({ length: 6 }, () => callApi(base, name, {})))
        const statuses = replies.map((r) => r.status)
        // Every call was answered; never more than one past the held slots ran at once.
        expect(
          statuses.filter((s) => s === 503).length,
          `${name}: ${statuses.join(',')}`,
        ).toBeGreaterThanOrEqual(1)
        for (const r of replies) expect([200, 400, 503], name).toContain(r.status)
      } finally {
        release()
      }
      await new Promise((r) => setTimeout(r, 20))
    }
  })
})

/** Threads of this process now (Linux: /proc/self/status). */
function threads(): number {
  const m = /^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))
  return m ? Number(m[1]) : 0
}

/** The figures docs/server.md states for a burst of report pages ("Measured"). */
function documentedFigures(): { burst: number; rows: number; mib: number; threadsPerCore: number } {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'server.md'), 'utf8')
  const m =
    /Measured \(heavy-gate\.test\.ts\): (\d+) parallel `buildReportHtml` on a ([\d ]+)-row chain[^:]*: at most (\d+) MiB more memory and (\d+) threads per core/.exec(
      doc,
    )
  if (!m) throw new Error('docs/server.md has no "Measured (heavy-gate.test.ts)" sentence')
  return {
    burst: Number(m[1]),
    rows: Number(m[2]!.replace(/ /g, '')),
    mib: Number(m[3]),
    threadsPerCore: Number(m[4]),
  }
}

describe('what one local client can hold (the figures of docs/server.md, measured)', () => {
  it('a burst of report pages: each admitted or refused at once; memory and threads within the documented figures', async () => {
    const fig = documentedFigures()
    expect(fig.rows).toBe(ROWS)
    global.gc?.()
    const rss0 = process.memoryUsage().rss
    const threads0 = threads()
    let rssPeak = rss0
    let threadsPeak = threads0
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
      threadsPeak = Math.max(threadsPeak, threads())
    }, 10)
    try {
      const replies = await Promise.all(
        Array.from({ length: fig.burst }, () => callApi(base, 'buildReportHtml', {})),
      )
      const ok = replies.filter((r) => r.status === 200).length
      const refused = replies.filter((r) => r.status === 503).length
      expect(ok + refused).toBe(fig.burst)
      // At most maxHeavyWork run at once (a call that ends frees its slot for the next to arrive).
      expect(ok).toBeGreaterThanOrEqual(1)
    } finally {
      clearInterval(sampler)
    }
    const grewMiB = (rssPeak - rss0) / (1024 * 1024)
    const extraThreads = threadsPeak - threads0
    console.log(`burst of ${fig.burst}: memory +${grewMiB.toFixed(0)} MiB, threads +${extraThreads}`)
    expect(grewMiB, `memory grew ${grewMiB.toFixed(0)} MiB`).toBeLessThan(fig.mib)
    expect(extraThreads, `${extraThreads} more threads`).toBeLessThanOrEqual(
      fig.threadsPerCore * availableParallelism(),
    )
  })
})
