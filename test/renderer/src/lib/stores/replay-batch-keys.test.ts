// @vitest-environment jsdom
// A replay batch's lines and summary on screen after the keys change: each line's row check
// ("row_not_verified" under a key typed wrong) and the batch's exit were the old keys'. After the
// keys are replaced they are taken down with a note saying why (the session's list is worded again
// by the engine); a batch that lands after the change is not shown. Over key orders, against the
// real handler table on a chain written for the test.
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
  const path = writeChainFolder(join(per.scratch('bijotel-replay-batch-keys-'), 'a'), { ...SMALL, rows: 100 })
  const h = createHandlers(per.session())
  const overview = (await h.openChain({ path }, ctx)) as ChainOverview
  const through =
    (name: keyof typeof h) =>
    async (req: unknown): Promise<never> =>
      structuredClone(await (h[name] as (r: unknown, c: typeof ctx) => Promise<never>)(req, ctx))
  const names = ['setSecrets', 'listKeys', 'checkReplayBatch', 'listReplayChecks'] as const
  const { api } = fakeApi({
    overrides: {
      ...(Object.fromEntries(names.map((n) => [n, through(n)])) as Partial<ApiClient>),
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
  return ws
}

const hex = (keys: string[]) => keys.map((value) => ({ encoding: 'hex' as const, value }))
const jsonl = () =>
  new File(
    [[3, 9, 27].map((seq) => JSON.stringify({ seq, output: `out ${seq}` })).join('\n') + '\n'],
    'b.jsonl',
  )

describe('a replay batch on screen follows the keys held', () => {
  for (const [first, then] of [
    [[WRONG], [KEY_HEX]],
    [[KEY_HEX], [WRONG]],
  ] as const)
    it(`${first[0] === KEY_HEX ? 'right' : 'wrong'} then ${then[0] === KEY_HEX ? 'right' : 'wrong'}`, async () => {
      const ws = await workspace()
      await ws.submitSecrets(hex([...first]))
      await ws.batch.drop([jsonl()])
      expect(ws.batch.getState().items.length).toBe(3)
      const status = first[0] === KEY_HEX ? 'no_metadata' : 'row_not_verified'
      expect(ws.batch.getState().items.every((i) => i.status === status)).toBe(true)
      await ws.submitSecrets(hex([...then]))
      expect(ws.batch.getState().items).toEqual([])
      expect(ws.batch.getState().summary).toBeNull()
      expect(ws.batch.getState().error).toMatch(/keys held before/)
      ws.dispose()
    })
})
