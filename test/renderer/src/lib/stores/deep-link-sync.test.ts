// Deep links through the stores, against a fake engine: a link read on load opens the chain it
// names with its row and filters; as the auditor works, the hash follows (web mode only), and
// nothing is written over a link that is still waiting for its chain.
import { describe, expect, it } from 'vitest'
import type { ChainOverview } from '../../../../../src/shared/chain-types'
import { parseLink } from '../../../../../src/renderer/src/lib/deep-link'
import { AppStore } from '../../../../../src/renderer/src/lib/stores/app-store'
import { DeepLinkSync, type LinkTarget } from '../../../../../src/renderer/src/lib/stores/deep-link-sync'
import { fakeApi, overviewOf } from '../../test/fake-api'

const tick = () => new Promise((r) => setTimeout(r, 0))

function memoryTarget(initial: string): LinkTarget & { writes: string[] } {
  let hash = initial
  const writes: string[] = []
  return {
    writes,
    read: () => hash,
    write: (h) => {
      hash = h
      writes.push(h)
    },
  }
}

/** An engine holding /evidence/a.db; openChain holds the path it is given. */
function engine(transport: 'http' | 'ipc' = 'http') {
  let held: ChainOverview = overviewOf(240, '/evidence/a.db')
  return fakeApi({
    info: { transport },
    overrides: {
      overview: async () => held,
      openChain: async (req) => (held = overviewOf(240, req.path)),
    },
  })
}

describe('deep links in the stores', () => {
  it('opens the linked chain at its row, with its filters, before writing anything back', async () => {
    const { api, calls } = engine()
    const target = memoryTarget('#chain=%2Fevidence%2Fb.db&seq=57&provider=openai&from=1&to=2')
    const store = new AppStore(api)
    const started = store.start(parseLink(target.read()))
    const stop = new DeepLinkSync(store, target).start()
    await started
    // The engine holds a.db for every tab: the page asks before the link swaps it (issue 34).
    expect(store.getState().confirmLink).toBe('/evidence/b.db')
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    await store.confirmOpenLink()
    const ws = store.getState().workspace!
    expect(ws.chain.path).toBe('/evidence/b.db')
    expect(calls.find((c) => c.name === 'openChain')?.req).toEqual({ path: '/evidence/b.db', focus_seq: 57 })
    expect(ws.getState().selected?.seq).toBe(57)
    expect(ws.getState().view).toMatchObject({ provider: 'openai', range: { from_ns: '1', to_ns: '2' } })
    // Nothing was written while the link waited (the held chain a.db never reached the hash).
    expect(target.writes.some((w) => w.includes('a.db'))).toBe(false)
    expect(target.read()).toBe('#chain=%2Fevidence%2Fb.db&seq=57&provider=openai&from=1&to=2')
    stop()
    store.dispose()
  })

  it('a link to the chain already held applies to it without opening it again', async () => {
    const { api, calls } = engine()
    const store = new AppStore(api)
    await store.start(parseLink('#chain=%2Fevidence%2Fa.db&seq=9&model=m'))
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    const ws = store.getState().workspace!
    expect(ws.getState().selected?.seq).toBe(9)
    expect(ws.getState().view.model).toBe('m')
    store.dispose()
  })

  it('a link to the chain held asks nothing, even when a second sync overtakes the first (a reload)', async () => {
    // Each engine answer waits for the test: the first (start's) is answered while a second sync
    // (an event on the page's load) is still on its way, so when start() looks, its answer was
    // not adopted and the workspace is not built yet.
    const gates: (() => void)[] = []
    const held = overviewOf(240, '/evidence/a.db')
    const { api, calls } = fakeApi({
      info: { transport: 'http' },
      overrides: {
        overview: () =>
          new Promise((resolve) => {
            gates.push(() => resolve(held))
          }),
      },
    })
    const store = new AppStore(api)
    const started = store.start(parseLink('#chain=%2Fevidence%2Fa.db&seq=9'))
    while (gates.length < 1) await tick()
    const second = store.sync()
    while (gates.length < 2) await tick()
    gates[0]!()
    await started
    expect(store.getState().confirmLink).toBeNull()
    gates[1]!()
    await second
    expect(store.getState().confirmLink).toBeNull()
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    const ws = store.getState().workspace!
    expect(ws.chain.path).toBe('/evidence/a.db')
    expect(ws.getState().selected?.seq).toBe(9)
    expect(store.getState().linkPending).toBe(false)
    store.dispose()
  })

  it('the hash follows the selection and the filters as the auditor works', async () => {
    const { api } = engine()
    const target = memoryTarget('')
    const store = new AppStore(api)
    const started = store.start(parseLink(''))
    const stop = new DeepLinkSync(store, target).start()
    await started
    expect(target.read()).toBe('#chain=%2Fevidence%2Fa.db')
    const ws = store.getState().workspace!
    ws.select(12)
    expect(target.read()).toBe('#chain=%2Fevidence%2Fa.db&seq=12')
    ws.dispatchView({ type: 'model', value: 'm' })
    ws.dispatchView({ type: 'range', value: { from_ns: '10', to_ns: '20' } })
    expect(parseLink(target.read())).toEqual({
      chain: '/evidence/a.db',
      seq: 12,
      provider: null,
      model: 'm',
      range: { from_ns: '10', to_ns: '20' },
    })
    // Another chain: the hash names it, without the old one's row and filters.
    await store.openPath('/evidence/c.db')
    await tick()
    expect(target.read()).toBe('#chain=%2Fevidence%2Fc.db')
    stop()
    store.dispose()
  })

  it('the desktop app neither reads nor writes links', async () => {
    const { api, calls } = engine('ipc')
    const target = memoryTarget('#chain=%2Fevidence%2Fb.db&seq=5')
    const store = new AppStore(api)
    const started = store.start(parseLink(target.read()))
    const stop = new DeepLinkSync(store, target).start()
    await started
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    store.getState().workspace!.select(3)
    expect(target.writes).toEqual([])
    stop()
    store.dispose()
  })

  it('the command line’s --seq opens the initial chain at that row', async () => {
    const { api, calls } = fakeApi({
      info: { transport: 'ipc', initial_path: '/evidence/x.db', initial_seq: 44 },
    })
    const store = new AppStore(api)
    await store.start()
    expect(calls.find((c) => c.name === 'openChain')?.req).toEqual({ path: '/evidence/x.db', focus_seq: 44 })
    store.dispose()
  })

  it('a link to another chain, refused, opens nothing and the URL names the chain held again', async () => {
    const { api, calls } = engine()
    const target = memoryTarget('#chain=%2Fevidence%2Fb.db&seq=5')
    const store = new AppStore(api)
    const started = store.start(parseLink(target.read()))
    const stop = new DeepLinkSync(store, target).start()
    await started
    expect(store.getState().confirmLink).toBe('/evidence/b.db')
    store.cancelLink()
    expect(store.getState().confirmLink).toBeNull()
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    expect(store.getState().workspace!.chain.path).toBe('/evidence/a.db')
    expect(target.read()).toBe('#chain=%2Fevidence%2Fa.db')
    stop()
    store.dispose()
  })

  it('a pasted link to the chain shown is applied; to another chain, asked for', async () => {
    const { api, calls } = engine()
    const store = new AppStore(api)
    await store.start(null)
    store.followLink(parseLink('#chain=%2Fevidence%2Fa.db&seq=33&provider=xai'))
    const ws = store.getState().workspace!
    expect(ws.getState().selected?.seq).toBe(33)
    expect(ws.getState().view.provider).toBe('xai')
    store.followLink(parseLink('#chain=%2Fevidence%2Fc.db&seq=2'))
    expect(store.getState().confirmLink).toBe('/evidence/c.db')
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
    await store.confirmOpenLink()
    expect(store.getState().workspace!.chain.path).toBe('/evidence/c.db')
    expect(store.getState().workspace!.getState().selected?.seq).toBe(2)
    store.dispose()
  })
})
