// The app store against a fake engine: the chain the engine holds is the only truth. A change of
// chain drops the shown workspace at once, the new one is read with currentChain, and answers that
// arrive for a chain that is no longer held are never delivered.
import { describe, expect, it } from 'vitest'
import type { ChainIdentity, ChainState } from '../../../../../src/shared/app-events'
import type { ApiClient } from '../../../../../src/shared/contract'
import type { KeyInfo } from '../../../../../src/shared/verify-types'
import { AppStore } from '../../../../../src/renderer/src/lib/stores/app-store'
import { scopedApi } from '../../../../../src/renderer/src/lib/stores/scoped-api'
import { fakeApi, overviewOf } from '../../test/fake-api'

const id = (open_id: number, path: string, sha256: string | null = 'a'.repeat(64)): ChainIdentity => ({
  open_id,
  path,
  sha256,
})

function stateOf(chain: ChainIdentity, rows = 240): ChainState {
  const ov = overviewOf(rows, chain.path)
  return {
    chain,
    overview: { ...ov, evidence: { ...ov.evidence, db: { ...ov.evidence.db, sha256: chain.sha256 ?? '' } } },
  }
}

/** A promise to resolve by hand: an engine answer that arrives when the test says so. */
function later<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

function engine(initial: ChainState | null, overrides: Partial<ApiClient> = {}) {
  let held = initial
  const { api, calls } = fakeApi({
    overrides: { currentChain: async () => held, ...overrides },
  })
  return { api, calls, set: (s: ChainState | null) => (held = s) }
}

describe('AppStore', () => {
  it('adopts the chain the engine holds at start, keyed by its identity', async () => {
    const e = engine(stateOf(id(3, '/evidence/a.db')))
    const store = new AppStore(e.api)
    await store.start()
    const s = store.getState()
    expect(s.chain).toEqual(id(3, '/evidence/a.db'))
    expect(s.workspace?.chain.open_id).toBe(3)
    expect(s.workspace?.getState().overview.evidence.db.path).toBe('/evidence/a.db')
    store.dispose()
  })

  it('another chain: the shown workspace is dropped at once, before the new one is read', async () => {
    const e = engine(stateOf(id(1, '/evidence/a.db')))
    const store = new AppStore(e.api)
    await store.start()
    const a = store.getState().workspace!
    const b = stateOf(id(2, '/evidence/b.db'), 210)
    e.set(b)
    store.chainChanged(b.chain)
    // Synchronously: the chain is B's and nothing of A is shown any more.
    expect(store.getState().chain).toEqual(b.chain)
    expect(store.getState().workspace).toBeNull()
    await tick()
    await tick()
    const ws = store.getState().workspace!
    expect(ws).not.toBe(a)
    expect(ws.chain).toEqual(b.chain)
    expect(ws.getState().overview.entries).toBe(210)
    store.dispose()
  })

  it('answers for the chain that is gone are never delivered to its workspace', async () => {
    const keys = later<KeyInfo[]>()
    const e = engine(stateOf(id(1, '/evidence/a.db')), { listKeys: () => keys.promise })
    const store = new AppStore(e.api)
    await store.start()
    const a = store.getState().workspace!
    store.chainChanged(null)
    expect(store.getState().workspace).toBeNull()
    keys.resolve([{ index: 0, encoding: 'hex', bytes: 32, fingerprint: 'deadbeef' }] as unknown as KeyInfo[])
    await tick()
    expect(a.getState().keys).toEqual([])
    store.dispose()
  })

  it('the same open further on (a staged open’s hashes) keeps the workspace and what it holds', async () => {
    const first = stateOf(id(5, '/evidence/big.db', null))
    const e = engine({ ...first, overview: { ...first.overview, pending: true } })
    const store = new AppStore(e.api)
    await store.start()
    const ws = store.getState().workspace!
    ws.select(17)
    const final = stateOf(id(5, '/evidence/big.db', 'f'.repeat(64)), 241)
    e.set(final)
    store.chainChanged(final.chain)
    await tick()
    await tick()
    expect(store.getState().workspace).toBe(ws)
    expect(ws.getState().selected?.seq).toBe(17)
    expect(ws.getState().overview.entries).toBe(241)
    expect(store.getState().chain?.sha256).toBe('f'.repeat(64))
    store.dispose()
  })

  it('a sync answer overtaken by a close is not adopted', async () => {
    const answer = later<ChainState | null>()
    let first = true
    const e = engine(null, {
      currentChain: () => {
        if (first) {
          first = false
          return Promise.resolve(null)
        }
        return answer.promise
      },
    })
    const store = new AppStore(e.api)
    await store.start()
    store.chainChanged(id(1, '/evidence/a.db'))
    store.chainChanged(null)
    answer.resolve(stateOf(id(1, '/evidence/a.db')))
    await tick()
    expect(store.getState().chain).toBeNull()
    expect(store.getState().workspace).toBeNull()
    store.dispose()
  })

  it('openFailed shows the engine’s line with the path it was about', async () => {
    const store = new AppStore(engine(null).api)
    store.openFailed('/evidence/gone.db', 'no such file')
    expect(store.getState().openError).toBe('/evidence/gone.db: no such file')
    store.openFailed('/evidence/gone.db', 'cannot open /evidence/gone.db: no such file')
    expect(store.getState().openError).toBe('cannot open /evidence/gone.db: no such file')
    store.dispose()
  })
})

describe('scopedApi', () => {
  it('sends nothing once its chain is gone, and drops answers that arrive after', async () => {
    let current = true
    const answer = later<null>()
    const { api, calls } = fakeApi({ overrides: { lastVerdict: () => answer.promise } })
    const scoped = scopedApi(api, () => current)
    let delivered = false
    void scoped.lastVerdict().then(() => (delivered = true))
    current = false
    answer.resolve(null)
    await tick()
    expect(delivered).toBe(false)
    void scoped.listKeys()
    expect(calls.filter((c) => c.name === 'listKeys')).toHaveLength(0)
  })
})
