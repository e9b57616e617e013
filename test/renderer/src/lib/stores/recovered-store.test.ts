// The RecoveredStore of a chain: it shows the verdict's recovered rows, a recover job's result (with
// its uncommitted rows), forgets both when the keys change (no verdict), and never shows a job's
// answer that arrives after that. Data from the engine on the shared rec-* files.
import { describe, expect, it } from 'vitest'
import { RecoveredStore } from '../../../../../src/renderer/src/lib/stores/recovered-store'
import { rowKey } from '../../../../../src/renderer/src/lib/recovered'
import type { ApiClient } from '../../../../../src/shared/contract'
import type { JobStatus } from '../../../../../src/shared/job-types'
import type { RecoveryResult } from '../../../../../src/shared/recovery-types'
import { recovered, verdictOf } from '../../test/recovered-kit'

function jobApi(result: RecoveryResult, gate?: Promise<void>): ApiClient {
  const done = (id: string): JobStatus<RecoveryResult> => ({
    id,
    kind: 'recover',
    state: 'done',
    progress: { done: 1, total: 1, phase: 'searching the files' },
    started_at: '',
    result,
    error: null,
  })
  return {
    startRecover: async () => {
      await gate
      return done('j1')
    },
    jobStatus: async () => done('j1'),
    cancelJob: async () => done('j1'),
  } as unknown as ApiClient
}

describe('RecoveredStore', () => {
  it('shows a verdict’s recovered rows and its rewritten seqs', async () => {
    const v = await verdictOf('rec-live-rewrite')
    const store = new RecoveredStore(jobApi(recovered('rec-live-rewrite')))
    store.fromVerdict(v)
    const s = store.getState()
    expect(s.origin).toBe('verify')
    expect(s.rows).toEqual(v.recovered)
    expect(s.summary).toEqual(v.recovery)
    const f = v.findings.find((x) => x.kind === 'rewritten')!
    for (let seq = f.from_seq; seq <= f.to_seq; seq++) expect(s.rewritten.has(seq)).toBe(true)
    expect(store.versionsAt(f.from_seq).every((r) => r.seq === f.from_seq)).toBe(true)
    store.select(rowKey(v.recovered![0]!))
    expect(store.selectedRow()).toEqual(v.recovered![0])
  })

  it('a recover job replaces them; without a verdict its proven earlier versions are the rewritten seqs', async () => {
    const result = recovered('rec-live-rewrite')
    const store = new RecoveredStore(jobApi(result))
    await store.recover()
    const s = store.getState()
    expect(s.origin).toBe('recover')
    expect(s.rows).toEqual(result.rows)
    expect([...s.rewritten].sort()).toEqual(
      result.rows.filter((r) => r.status === 'superseded').map((r) => r.seq),
    )
  })

  it('new keys (no verdict) clear everything, and a job started before is never shown', async () => {
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    const store = new RecoveredStore(jobApi(recovered('rec-live-truncate'), gate))
    store.fromVerdict(await verdictOf('rec-live-truncate'))
    expect(store.getState().rows.length).toBeGreaterThan(0)
    const running = store.recover()
    store.fromVerdict(null)
    expect(store.getState()).toMatchObject({ origin: null, rows: [], summary: null })
    open()
    await running
    expect(store.getState().rows).toEqual([])
  })
})
