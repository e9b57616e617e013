// The session's list of replay checks on screen after the keys change: a check made under a key
// typed wrong said "ROW DOES NOT VERIFY" of a row the right key verifies, and kept saying it (and
// "row verifies … key #2" kept naming a key since removed). The list shown must be the engine's
// words for the keys now held — after every key change, and for a check that lands after one.
// Generated over key orders and over the point of the check at which the keys change, against the
// real handler table on a chain written for the test (only the client is the page's).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../../src/shared/chain-types'
import type { ApiClient } from '../../../../../src/shared/contract'
import type { ReplayCheck } from '../../../../../src/shared/replay-types'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { fakeApi } from '../../test/fake-api'
import { perTest } from '../../../../main/testing/per-test'
import { KEY_HEX, SMALL, writeChainFolder } from '../../../../main/testing/exact-chains'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const WRONG = 'ab'.repeat(32)

async function workspace() {
  const dir = per.scratch('bijotel-replay-checks-keys-')
  const path = writeChainFolder(join(dir, 'a'), { ...SMALL, rows: 200 })
  const session = per.session()
  const h = createHandlers(session)
  const overview = (await h.openChain({ path }, ctx)) as ChainOverview
  // As a transport delivers them: copies (IPC's structured clone), never the engine's own objects.
  const through =
    (name: keyof typeof h) =>
    async (req: unknown): Promise<never> =>
      structuredClone(await (h[name] as (r: unknown, c: typeof ctx) => Promise<never>)(req, ctx))
  const names = ['setSecrets', 'listKeys', 'checkReplay', 'listReplayChecks', 'lastVerdict'] as const
  const { api } = fakeApi({
    overrides: {
      ...(Object.fromEntries(names.map((n) => [n, through(n)])) as Partial<ApiClient>),
      // The verification the new keys start is not what is tested here: refused at once.
      startVerify: async () => {
        throw new Error('not verified in this test')
      },
      runIntegrity: () => new Promise(() => undefined),
      keylessVerdict: async () => null,
    },
  })
  const ws = new WorkspaceStore({ open_id: 1, path, sha256: null }, api, overview, {
    hasDialogs: false,
    notify: () => undefined,
  })
  return { ws, h }
}

const hex = (keys: string[]) => keys.map((value) => ({ encoding: 'hex' as const, value }))

/** What the keys held make of each listed row: the engine answering a check made now. */
async function wordsNow(h: ReturnType<typeof createHandlers>, checks: ReplayCheck[]) {
  const out: { row_verified: boolean | null; row_detail: string }[] = []
  for (const c of checks) {
    const fresh = (await h.checkReplay({ seq: c.seq, text: 'now' }, ctx)) as ReplayCheck
    out.push({ row_verified: fresh.row_verified, row_detail: fresh.row_detail })
  }
  return out
}

async function settle(ws: WorkspaceStore): Promise<void> {
  for (let i = 0; i < 200 && ws.getState().replayBusy; i++) await new Promise((r) => setTimeout(r, 2))
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5))
}

describe('replay checks on screen follow the keys held', () => {
  const orders: [string[], string[]][] = [
    [[WRONG], [KEY_HEX]],
    [[KEY_HEX], [WRONG]],
    [[WRONG, KEY_HEX], [KEY_HEX]],
    [[KEY_HEX], []],
  ]
  for (const [first, then] of orders)
    for (const during of [false, true])
      it(`${first.map((k) => (k === KEY_HEX ? 'right' : 'wrong')).join('+')} then ${then.map((k) => (k === KEY_HEX ? 'right' : 'wrong')).join('+') || 'no key'}${during ? ', changed while the check runs' : ''}`, async () => {
        const { ws, h } = await workspace()
        await ws.submitSecrets(hex(first))
        const check = ws.runReplay({ seq: 17, text: 'replayed' })
        if (!during) await check
        await ws.submitSecrets(hex(then))
        await check
        await settle(ws)
        const shown = ws.getState().checks
        expect(shown.length).toBeGreaterThan(0)
        const want = await wordsNow(h, shown)
        expect(shown.map((c) => ({ row_verified: c.row_verified, row_detail: c.row_detail }))).toEqual(want)
        ws.dispose()
      })
})
