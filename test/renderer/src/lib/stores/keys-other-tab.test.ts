// @vitest-environment jsdom
// Keys replaced in another tab (web mode: the engine holds one key set for every tab and client).
// Tab B shows a verdict, replay checks and a batch's lines made under the keys it shows; tab A then
// replaces the keys (a wrong key typed, a rotated key added, a key removed). Before, tab B kept its
// VALID, its fingerprints and its batch's "row verifies" lines while every answer it got next was
// the new keys' — one screen, two key sets. Now every page is told (AppEvents.keysChanged, sent by
// the session as the call is made) and takes down what was made under other keys. Generated
// sequences of key changes, verifies, checks and batches over two tabs, against the real handler
// table on a chain written for the test; the event reaches each tab through the renderer's own
// event handler table (appEventHandlers), as the transports deliver it.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../../src/shared/chain-types'
import type { ApiClient } from '../../../../../src/shared/contract'
import type { AppEvents } from '../../../../../src/shared/app-events'
import type { KeyInfo } from '../../../../../src/shared/verify-types'
import { createHandlers } from '../../../../../src/main/handlers/table'
import type { AuditSession } from '../../../../../src/main/session/session'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { appEventHandlers } from '../../../../../src/renderer/src/app/app-events'
import type { AppStore } from '../../../../../src/renderer/src/lib/stores/app-store'
import { fakeApi } from '../../test/fake-api'
import { perTest } from '../../../../main/testing/per-test'
import { mulberry32 } from '../../../../main/testing/prng'
import { KEY_HEX, SMALL, writeChainFolder } from '../../../../main/testing/exact-chains'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const WRONG = 'ab'.repeat(32)
const OTHER = 'cd'.repeat(32)

type Handlers = ReturnType<typeof createHandlers>

function tab(session: AuditSession, h: Handlers, path: string, overview: ChainOverview): WorkspaceStore {
  const through =
    (name: keyof Handlers) =>
    async (req: unknown): Promise<never> =>
      structuredClone(await (h[name] as (r: unknown, c: typeof ctx) => Promise<never>)(req, ctx))
  const names = [
    'setSecrets',
    'listKeys',
    'startVerify',
    'jobStatus',
    'cancelJob',
    'lastVerdict',
    'checkReplay',
    'checkReplayBatch',
    'listReplayChecks',
  ] as const
  const { api } = fakeApi({
    overrides: {
      ...(Object.fromEntries(names.map((n) => [n, through(n)])) as Partial<ApiClient>),
      runIntegrity: () => new Promise(() => undefined),
      keylessVerdict: async () => null,
    },
  })
  const ws = new WorkspaceStore({ open_id: 1, path, sha256: null }, api, overview, {
    hasDialogs: false,
    notify: () => undefined,
  })
  // The transport: every page gets the session's events through the renderer's own handler table.
  const handlers = appEventHandlers({ getState: () => ({ workspace: ws }) } as unknown as AppStore, {
    focusPathBox: () => undefined,
  })
  const on = session as unknown as {
    onKeysChanged?: (l: (keys: KeyInfo[]) => void) => () => void
  }
  on.onKeysChanged?.((keys) =>
    (handlers as { keysChanged?: (p: AppEvents['keysChanged']) => void }).keysChanged?.({ keys }),
  )
  return ws
}

async function twoTabs() {
  const path = writeChainFolder(join(per.scratch('bijotel-keys-other-tab-'), 'a'), { ...SMALL, rows: 60 })
  const session = per.session()
  const h = createHandlers(session)
  const overview = (await h.openChain({ path }, ctx)) as ChainOverview
  return { session, h, tabs: [tab(session, h, path, overview), tab(session, h, path, overview)] }
}

const hex = (...keys: string[]) => keys.map((value) => ({ encoding: 'hex' as const, value }))
const batchFile = (seqs: number[]) =>
  new File([seqs.map((seq) => JSON.stringify({ seq, output: `out ${seq}` })).join('\n') + '\n'], 'b.jsonl')
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 1))
}

/** What every tab may show: only what the keys the engine holds now would give. */
async function expectOneStory(h: Handlers, session: AuditSession, tabs: WorkspaceStore[], step: string) {
  const keys = (await h.listKeys({}, ctx)) as KeyInfo[]
  const checks = await h.listReplayChecks({}, ctx)
  for (const [i, ws] of tabs.entries()) {
    const s = ws.getState()
    const where = `${step}, tab ${i === 0 ? 'A' : 'B'}`
    expect(s.keys, `${where}: keys shown`).toEqual(keys)
    if (s.verdict !== null) expect(s.verdict, `${where}: verdict`).toEqual(session.verdict)
    // Each check shown reads as the engine words it under the keys held now (another tab's checks
    // need not be listed here; none may keep the old keys' row words).
    for (const c of s.checks) expect(checks, `${where}: replay check`).toContainEqual(c)
    const items = ws.batch.getState().items
    if (items.length > 0) {
      // The same lines checked now, under the keys held, give the same statuses.
      const seqs = items.map((x) => x.seq!)
      const again = (await h.checkReplayBatch(
        {
          jsonl_base64: Buffer.from(
            seqs.map((seq) => JSON.stringify({ seq, output: `out ${seq}` })).join('\n') + '\n',
          ).toString('base64'),
        },
        ctx,
      )) as { items: { status: string }[] }
      expect(
        items.map((x) => x.status),
        `${where}: batch lines`,
      ).toEqual(again.items.map((x) => x.status))
    }
  }
}

describe('keys replaced in another tab: every tab shows only the keys held now', () => {
  const KEYSETS = [[KEY_HEX], [WRONG], [KEY_HEX, OTHER], [OTHER, WRONG]]
  for (let seed = 1; seed <= 6; seed++)
    it(`generated sequence ${seed}`, async () => {
      const rnd = mulberry32(seed * 7919)
      const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
      const { session, h, tabs } = await twoTabs()
      await tabs[1]!.submitSecrets(hex(KEY_HEX))
      await settle()
      const log: string[] = ['B: right key']
      for (let step = 0; step < 8; step++) {
        const t = Math.floor(rnd() * 2)
        const ws = tabs[t]!
        const name = t === 0 ? 'A' : 'B'
        switch (pick(['keys', 'keys', 'batch', 'check', 'verify'])) {
          case 'keys': {
            const set = pick(KEYSETS)
            log.push(`${name}: keys ${set.map((k) => k.slice(0, 2)).join('+')}`)
            await ws.submitSecrets(hex(...set))
            break
          }
          case 'batch':
            log.push(`${name}: batch`)
            await ws.batch.drop([batchFile([3, 9, 27])])
            break
          case 'check':
            log.push(`${name}: replay check`)
            await ws.runReplay({
              seq: 5,
              file_base64: Buffer.from('out').toString('base64'),
              file_name: 'r.txt',
            })
            break
          case 'verify':
            log.push(`${name}: verify`)
            await ws.verify(undefined, true)
            break
        }
        await settle()
        await expectOneStory(h, session, tabs, log.join(' / '))
      }
      for (const ws of tabs) ws.dispose()
    })

  it('B verified VALID with the right key; A types a wrong one: B no longer says VALID under its old fingerprint', async () => {
    const { session, h, tabs } = await twoTabs()
    const [a, b] = tabs as [WorkspaceStore, WorkspaceStore]
    await b.submitSecrets(hex(KEY_HEX))
    await settle()
    expect(b.getState().verdict?.valid).toBe(true)
    await b.batch.drop([batchFile([3, 9])])
    expect(b.batch.getState().items.map((x) => x.status)).toEqual(['no_metadata', 'no_metadata'])
    await a.submitSecrets(hex(WRONG))
    await settle()
    expect(b.getState().verdict).toBeNull()
    expect(b.getState().keys).toEqual(await h.listKeys({}, ctx))
    expect(b.getState().keysNote).toMatch(/changed in another tab/)
    expect(b.batch.getState().items).toEqual([])
    // A's own page says nothing of another tab.
    expect(a.getState().keysNote).toBeNull()
    expect(session.keys).toHaveLength(1)
    a.dispose()
    b.dispose()
  })

  it("a page's own key change, announced before its answer, replaces its keys once (twice, the integrity run the first started landed out of date)", async () => {
    const { h, tabs } = await twoTabs()
    const [a, b] = tabs as [WorkspaceStore, WorkspaceStore]
    for (const keys of [hex(KEY_HEX), hex(WRONG), hex(KEY_HEX, OTHER)]) {
      const gen = a.getState().keyGen
      await a.submitSecrets(keys)
      await settle()
      expect(a.getState().keyGen).toBe(gen + 1)
      expect(a.getState().keysNote).toBeNull()
      expect(a.getState().keys).toEqual(await h.listKeys({}, ctx))
      // The other page took the event: the keys held, said why.
      expect(b.getState().keys).toEqual(await h.listKeys({}, ctx))
      expect(b.getState().keysNote).toMatch(/changed in another tab/)
    }
    a.dispose()
    b.dispose()
  })
})
