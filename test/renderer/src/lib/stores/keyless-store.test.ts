// The keyless check in the stores, against a fake engine: the job the engine started on open is
// followed to its end, its verdict kept and announced, and the workspace's flags asked again (its
// breaks are flagged rows); no job (no chain, an engine without it) leaves no card.
// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../../../src/shared/job-types'
import type { VerifyVerdict } from '../../../../../src/shared/verify-types'
import { announcer } from '../../../../../src/renderer/src/lib/stores/announcer'
import { KeylessStore } from '../../../../../src/renderer/src/lib/stores/keyless-store'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { fakeApi, overviewOf } from '../../test/fake-api'

const verdict: VerifyVerdict = {
  valid: false,
  entries: 240,
  first_seq: 1,
  last_seq: 240,
  head_hmac: null,
  first_bad_seq: 57,
  findings: [{ kind: 'body_hash_mismatch', from_seq: 57, to_seq: 57, count: 1 }],
  key_segments: [],
  hmac_checked: false,
}

function status(state: JobStatus['state']): JobStatus<VerifyVerdict> {
  return {
    id: 'k1',
    kind: 'keyless-verify',
    state,
    progress: { done: state === 'done' ? 240 : 100, total: 240, phase: 'verifying without the key' },
    started_at: '',
    result: state === 'done' ? verdict : null,
    error: null,
  }
}

describe('KeylessStore', () => {
  it('follows the running check to its verdict, announces it and tells the workspace', async () => {
    let polls = 0
    const { api, calls } = fakeApi({
      overrides: {
        keylessVerdict: async () => status('running'),
        jobStatus: async () => status(++polls > 2 ? 'done' : 'running'),
      },
    })
    const told: VerifyVerdict[] = []
    const store = new KeylessStore(api, (v) => told.push(v))
    const seen: (JobStatus | null)[] = []
    store.job.subscribe(() => seen.push(store.job.getState().status))
    await store.load()
    expect(seen.some((s) => s?.state === 'running')).toBe(true)
    expect(store.job.getState().status).toBeNull()
    expect(store.getState()).toEqual({ verdict, asked: true })
    expect(told).toEqual([verdict])
    expect(calls.filter((c) => c.name === 'jobStatus').length).toBeGreaterThanOrEqual(3)
    expect(announcer.getState().last?.text).toBe(
      'Keyless check finished: 1 break, first at seq 57; HMACs not checked.',
    )
  })

  it('no check held by the engine: nothing shown, nothing announced as an error', async () => {
    const before = announcer.getState().last
    const { api } = fakeApi({ overrides: { keylessVerdict: async () => null } })
    const store = new KeylessStore(api)
    await store.load()
    expect(store.getState()).toEqual({ verdict: null, asked: true })
    expect(store.job.getState()).toEqual({ status: null, error: null })
    expect(announcer.getState().last).toBe(before)
  })

  it('in the workspace: loaded on open, and its verdict bumps the flags', async () => {
    const { api } = fakeApi({ overrides: { keylessVerdict: async () => status('done') } })
    const ws = new WorkspaceStore(
      { open_id: 1, path: '/evidence/a.db', sha256: null },
      api,
      overviewOf(240),
      {
        hasDialogs: false,
        notify: () => undefined,
      },
    )
    const flags = ws.getState().flagVersion
    ws.load()
    await expect.poll(() => ws.keyless.getState().verdict).toEqual(verdict)
    expect(ws.getState().flagVersion).toBeGreaterThan(flags)
    // The keyed verdict is untouched: only verify sets it.
    expect(ws.getState().verdict).toBeNull()
    ws.dispose()
  })
})
