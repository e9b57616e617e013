// A missing seq selected in the workspace (issue 35), through the engine's real answers for the shared
// fixtures (seqGaps of an opened session, the library's verdict): it shows what is known and steps to
// the live rows around it; a seq the files gave back opens the Recovered tab at that row; a live seq
// stays an entry; nothing is decided before the gaps are known.
import { afterEach, describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../../src/shared/chain-types'
import type { VerifyVerdict } from '../../../../../src/shared/verify-types'
import { AuditSession } from '../../../../../src/main/session/session'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { rowKey } from '../../../../../src/renderer/src/lib/recovered'
import { fakeApi } from '../../test/fake-api'
import { verdictOf } from '../../test/recovered-kit'
import { dbPath } from '../../../../main/testing/fixtures'

const ctx = { transport: 'http', trusted: true } as const
let session: AuditSession | null = null
afterEach(() => session?.dispose())

async function workspace(name: string, verdict: VerifyVerdict | null): Promise<WorkspaceStore> {
  session = new AuditSession()
  const h = createHandlers(session)
  const overview = (await session.open(dbPath(name))) as ChainOverview
  const { api } = fakeApi({
    overrides: {
      seqGaps: () => h.seqGaps(undefined, ctx),
      lastVerdict: async () => verdict,
      keylessVerdict: async () => null,
    },
  })
  const ws = new WorkspaceStore({ open_id: 1, path: dbPath(name), sha256: null }, api, overview, {
    hasDialogs: false,
    notify: () => undefined,
  })
  ws.load()
  await expect.poll(() => ws.gaps.getState().gaps).not.toBeNull()
  if (verdict) await expect.poll(() => ws.getState().verdict).toBe(verdict)
  return ws
}

describe('a missing seq in the workspace', () => {
  it('row-deleted: seq 40 is known missing, with the live rows 39 and 41 around it; 39 and 41 are entries', async () => {
    const ws = await workspace('row-deleted', null)
    expect(ws.missingSpan(40)).toEqual({ from: 40, to: 40, after: 39, before: 41 })
    for (const s of [1, 39, 41, 240]) expect(ws.missingSpan(s)).toBeNull()
    ws.select(40)
    expect(ws.getState().selected?.seq).toBe(40)
    expect(ws.getState().detailTab).toBe('entry')
    expect(ws.getState().neighbours).toEqual({ prev: 39, next: 41 })
    ws.step(1)
    expect(ws.getState().selected?.seq).toBe(41)
    // Beyond the live chain where no evidence names seqs: that seq alone, never a made-up range.
    expect(ws.missingSpan(999)).toEqual({ from: 999, to: 999, after: 240, before: null })
    ws.dispose()
  })

  it('rec-deleted-middle: a deleted seq opens the Recovered tab at its row', async () => {
    const v = await verdictOf('rec-deleted-middle')
    const ws = await workspace('rec-deleted-middle', v)
    const row = (v.recovered ?? []).find((r) => r.status === 'deleted')!
    ws.select(row.seq!)
    expect(ws.getState().detailTab).toBe('recovered')
    expect(ws.recovered.getState().selected).toBe(rowKey(ws.recovered.versionsAt(row.seq!)[0]!))
    // A live seq stays an entry.
    ws.select(1)
    expect(ws.getState().detailTab).toBe('entry')
    ws.dispose()
  })

  it('before the gaps are known nothing inside the chain is called missing', async () => {
    const { api } = fakeApi({ overrides: { seqGaps: () => new Promise(() => undefined) } })
    const ws = new WorkspaceStore(
      { open_id: 1, path: '/evidence/a.db', sha256: null },
      api,
      (await fakeApi().api.openChain({ path: '/evidence/a.db' })) as ChainOverview,
      { hasDialogs: false, notify: () => undefined },
    )
    ws.load()
    expect(ws.missingSpan(40)).toBeNull()
    ws.select(40)
    expect(ws.getState().detailTab).toBe('entry')
    ws.dispose()
  })
})
