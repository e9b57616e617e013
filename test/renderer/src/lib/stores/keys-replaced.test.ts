// Keys typed wrong, then right (issue 35's "a wrong key gives a bare BROKEN", in time): the second
// key set arrives while the first one's verify still runs. The screen's verdict must be the keys
// now held — never the wrong key's "HMAC mismatch" landing late under the right key — and the chain
// is verified with them. Every order of key sets (wrong/right/more keys) is generated, against the
// real handler table on a chain written for the test (only the client is the page's).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../../src/shared/chain-types'
import type { ApiClient } from '../../../../../src/shared/contract'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { fakeApi } from '../../test/fake-api'
import { perTest } from '../../../../main/testing/per-test'
import { KEY_HEX, SMALL, writeChainFolder } from '../../../../main/testing/exact-chains'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const WRONG = 'ab'.repeat(32)

async function workspace() {
  const dir = per.scratch('bijotel-keys-replaced-')
  const path = writeChainFolder(join(dir, 'a'), { ...SMALL, rows: 3000 })
  const session = per.session()
  const h = createHandlers(session)
  const overview = (await h.openChain({ path }, ctx)) as ChainOverview
  // The page's client over the engine's own handlers (the transports' table).
  const through =
    (name: keyof typeof h) =>
    (req: unknown): Promise<never> =>
      (h[name] as (r: unknown, c: typeof ctx) => Promise<never>)(req, ctx)
  const names = ['setSecrets', 'startVerify', 'jobStatus', 'cancelJob', 'lastVerdict', 'listKeys'] as const
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
  return { ws, h }
}

const hex = (...keys: string[]) => keys.map((value) => ({ encoding: 'hex' as const, value }))

describe('keys replaced while their verify runs', () => {
  const orders: [string, string[], string[]][] = [
    ['wrong, then right', [WRONG], [KEY_HEX]],
    ['right, then wrong', [KEY_HEX], [WRONG]],
    ['wrong, then right and the wrong one', [WRONG], [KEY_HEX, WRONG]],
  ]
  for (const [name, first, then] of orders)
    it(`${name}: the verdict shown is the keys now held`, async () => {
      const { ws, h } = await workspace()
      const one = ws.submitSecrets(hex(...first))
      // The first key set's verify has started.
      while (!ws.verifyJob.running) await new Promise((r) => setTimeout(r, 1))
      await Promise.all([one, ws.submitSecrets(hex(...then))])
      const v = ws.getState().verdict
      expect(v, 'verified again with the keys now held').not.toBeNull()
      expect(v!.valid).toBe(then[0] === KEY_HEX)
      expect(((await h.lastVerdict(undefined, ctx)) as { valid: boolean }).valid).toBe(then[0] === KEY_HEX)
      ws.dispose()
    })
})
