// Signing belongs to the auditor (issue 34). The adversary is any local client: it can load the
// page (and so hold the app token), open chains of its own making under an --open-root, set its own
// HMAC keys, and call every call. It must never obtain a report signed by the auditor's key, nor
// set, swap or drop that key; the auditor sees every signature made (stderr line, page event).
import { generateKeyPairSync, createPublicKey } from 'node:crypto'
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { parseSecrets } from '../../../src/main/chain/keys'
import { custodyOf } from '../../../src/main/session/custody-state'
import { setSigningKeyFrom } from '../../../src/main/handlers/custody'
import { createHandlers } from '../../../src/main/handlers/table'
import { dispatch } from '../../../src/main/handlers/dispatch'
import { checkReportSignature } from '../../../src/main/custody/sign'
import { APP_TOKEN_HEADER } from '../../../src/main/server/auth'
import {
  callApi,
  fakeRenderer,
  fetchAppToken,
  readSse,
  tempDir,
  writeSyntheticChain,
  type Reply,
} from './testkit'

const KEY = Buffer.from('auditor-hmac-key-0123456789', 'utf8')
const OTHER = Buffer.from('the-clients-own-key-98765', 'utf8')
const API_KEY = 'an-api-key-of-the-auditor-0123456789'
const tmp = tempDir('bijotel-signing-')
const pair = generateKeyPairSync('ed25519')
const rogue = generateKeyPairSync('ed25519')
const keyFile = join(tmp.dir, 'auditor.pem')
const rogueFile = join(tmp.dir, 'root', 'rogue.pem')
const root = join(tmp.dir, 'root')
let chain: string
let own: string
const sessions: AuditSession[] = []
const servers: RunningServer[] = []

/** Every call that can produce a report, and a request for it. */
const SIGNING_CALLS: [string, unknown][] = [
  ['buildReport', {}],
  ['buildReport', { integrity: { window: 10 } }],
  ['buildReportHtml', {}],
  ['buildReportHtml', { integrity: { window: 5 } }],
  ['saveReport', {}],
  ['saveReport', { format: 'html' }],
]

/** Whatever a reply carries that looks like a report, as parsed documents (a page's embedded one too). */
function reportsIn(r: Reply): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  const j = r.json as Record<string, unknown> | undefined
  if (j && typeof j === 'object') {
    if ('generated_at' in j) out.push(j)
    if (typeof j['html'] === 'string') {
      const m = /<script type="application\/json" id="bijotel-report">([\s\S]*?)<\/script>/.exec(j['html'])
      if (m) out.push(JSON.parse(m[1]!) as Record<string, unknown>)
    }
  }
  return out
}

/** Whether `doc` carries a signature that holds against the auditor's key. */
function signedByAuditor(doc: Record<string, unknown>): boolean {
  return checkReportSignature(doc, createPublicKey(pair.privateKey)).status === 'valid'
}

function session(): AuditSession {
  const s = new AuditSession({ initialPath: chain, openRoots: [root] })
  sessions.push(s)
  return s
}

/** The chain opened and the auditor's key held for it (an open clears the keys: issue 35). */
async function openWithKey(s: AuditSession): Promise<void> {
  await s.open(chain)
  s.keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
}

beforeAll(async () => {
  mkdirSync(root)
  writeFileSync(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }))
  writeFileSync(rogueFile, rogue.privateKey.export({ type: 'pkcs8', format: 'pem' }))
  chain = join(root, 'chain.db')
  writeSyntheticChain(chain, 60, KEY)
  // A chain of the client's own making, sealed with its own key, inside the open root.
  own = join(root, 'own.db')
  writeSyntheticChain(own, 30, OTHER)
  copyFileSync(own, join(root, 'own-copy.db'))
})

afterAll(async () => {
  for (const s of servers) await s.close()
  for (const s of sessions) s.dispose()
  tmp.cleanup()
})

describe('web mode without an API key never signs', () => {
  it('refuses to start with a signing key and no API key', async () => {
    const s = session()
    await openWithKey(s)
    setSigningKeyFrom(s, keyFile)
    await expect(startServer({ session: s, port: 0, log: () => undefined })).rejects.toThrow(
      /signing key needs an API key/,
    )
  })

  it('a key held by the session is never used for a client: every signing call, with and without the app token, after any state change', async () => {
    const s = session()
    await openWithKey(s)
    const lines: string[] = []
    const server = await startServer({
      session: s,
      port: 0,
      staticDir: fakeRenderer(join(tmp.dir, 'site')),
      log: (l) => lines.push(l),
    })
    servers.push(server)
    const base = server.url.replace(/\/$/, '')
    const token = await fetchAppToken(base)
    // Loaded after the start (as the desktop code could): still never used over HTTP without a key.
    setSigningKeyFrom(s, keyFile)
    const headerSets: Record<string, string>[] = [
      {},
      { [APP_TOKEN_HEADER]: token },
      { [APP_TOKEN_HEADER]: 'not-the-token' },
      { [APP_TOKEN_HEADER]: token, Authorization: `Bearer ${API_KEY}` },
    ]
    // The adversary's moves before asking for a report: none; its own secrets; its own chain.
    const setups: (() => Promise<unknown>)[] = [
      async () => undefined,
      () =>
        callApi(
          base,
          'setSecrets',
          { secrets: [{ encoding: 'hex', value: OTHER.toString('hex') }] },
          { [APP_TOKEN_HEADER]: token },
        ),
      () => callApi(base, 'openChain', { path: own }),
      () => callApi(base, 'openChain', { path: join(root, 'own-copy.db') }),
    ]
    let reports = 0
    for (const setup of setups) {
      await setup()
      for (const headers of headerSets) {
        for (const [name, req] of SIGNING_CALLS) {
          const r = await callApi(base, name, req, headers)
          for (const doc of reportsIn(r)) {
            reports++
            expect(doc['signature'], `${name} ${JSON.stringify(headers)}`).toBeUndefined()
            expect(signedByAuditor(doc)).toBe(false)
          }
        }
      }
    }
    expect(reports).toBeGreaterThan(50)
    expect(lines.filter((l) => l.includes('report signed'))).toEqual([])
  })

  it('the key is never set, replaced or removed over HTTP, by anyone', async () => {
    const s = session()
    await openWithKey(s)
    const server = await startServer({
      session: s,
      port: 0,
      staticDir: fakeRenderer(join(tmp.dir, 'site2')),
      log: () => undefined,
    })
    servers.push(server)
    const base = server.url.replace(/\/$/, '')
    const token = await fetchAppToken(base)
    setSigningKeyFrom(s, keyFile)
    const held = custodyOf(s).signing!.info
    for (const headers of [{}, { [APP_TOKEN_HEADER]: token }] as Record<string, string>[]) {
      for (const [name, req] of [
        ['setSigningKey', { path: rogueFile }],
        ['setSigningKey', { path: null }],
        ['setSigningKey', { path: '/dev/zero' }],
        ['setSigningKey', {}],
        ['pickSigningKey', {}],
      ] as const) {
        const r = await callApi(base, name, req, headers)
        expect(r.status, `${name} ${JSON.stringify(req)}`).toBe(403)
        expect(custodyOf(s).signing?.info).toEqual(held)
      }
    }
  })
})

describe('web mode with an API key signs for the API key only, and announces it', () => {
  it('no bearer or a wrong one: 401 and no signature; the bearer: signed, logged on stderr and sent to the pages', async () => {
    const s = session()
    await openWithKey(s)
    setSigningKeyFrom(s, keyFile)
    const lines: string[] = []
    const server = await startServer({ session: s, port: 0, apiKey: API_KEY, log: (l) => lines.push(l) })
    servers.push(server)
    const base = server.url.replace(/\/$/, '')
    const bearer = { Authorization: `Bearer ${API_KEY}` }
    for (const headers of [
      {},
      { Authorization: 'Bearer wrong-key-wrong-key-wrong' },
      { [APP_TOKEN_HEADER]: 'x' },
    ] as Record<string, string>[]) {
      for (const [name, req] of SIGNING_CALLS) {
        const r = await callApi(base, name, req, headers)
        expect(r.status).toBe(401)
        expect(reportsIn(r)).toEqual([])
      }
    }
    expect(lines).toEqual([])
    const events: unknown[] = []
    const sse = readSse(`${base}/api/events`, {
      headers: bearer,
      onEvent: (e) => {
        if (e.event === 'reportSigned') events.push(e.data)
      },
      until: (e) => e.event === 'reportSigned',
    })
    await new Promise((r) => setTimeout(r, 100))
    const r = await callApi(base, 'buildReport', {}, bearer)
    expect(r.status).toBe(200)
    const report = r.json as AuditReport
    expect(signedByAuditor(report as unknown as Record<string, unknown>)).toBe(true)
    await sse
    const fp = custodyOf(s).signing!.info.fingerprint
    expect(events).toEqual([{ fingerprint: fp, generated_at: report.generated_at }])
    expect(lines).toEqual([`report signed with key ${fp} (${report.generated_at})\n`])
    const page = await callApi(base, 'buildReportHtml', {}, bearer)
    expect(reportsIn(page).map(signedByAuditor)).toEqual([true])
    expect(lines).toHaveLength(2)
    // Even with the API key, the key itself is not changed over HTTP.
    expect((await callApi(base, 'setSigningKey', { path: rogueFile }, bearer)).status).toBe(403)
    expect((await callApi(base, 'setSigningKey', { path: null }, bearer)).status).toBe(403)
    expect(custodyOf(s).signing!.info.fingerprint).toBe(fp)
  })
})

describe('the desktop app', () => {
  it('signs, and every signature is announced; a path string from the page is refused', async () => {
    const s = session()
    await openWithKey(s)
    const table = createHandlers(s, { pickKeyPath: async () => keyFile })
    const ipc = { transport: 'ipc' as const, trusted: true }
    const announced: string[] = []
    custodyOf(s).signedListeners.add((x) => announced.push(x.fingerprint))
    expect((await dispatch(table, 'setSigningKey', { path: rogueFile }, ipc)).ok).toBe(false)
    expect(custodyOf(s).signing).toBeNull()
    const picked = await dispatch(table, 'pickSigningKey', {}, ipc)
    expect(picked.ok).toBe(true)
    const r = await dispatch(table, 'buildReport', {}, ipc)
    expect(r.ok && signedByAuditor(r.value as unknown as Record<string, unknown>)).toBe(true)
    expect(announced).toEqual([custodyOf(s).signing!.info.fingerprint])
  })
})
