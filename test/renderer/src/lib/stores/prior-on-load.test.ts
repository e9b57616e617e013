// @vitest-environment jsdom
// A page loaded while the engine holds a prior (a reload, another tab, the desktop window reloaded)
// shows it. Before, a page learnt the prior only from the connect-time priorChanged, which arrives
// while the page is still reading its chain and has no workspace: the event was dropped, the panel
// said nothing of a prior, and the verify the page ran at once applied it ('prior head … gone'
// findings with no prior in view). Now the chain read (currentChain) carries the prior held, and a
// priorChanged that arrives while the workspace is being built is kept for it. Generated
// interleavings of the page's start, the read's answer and priorChanged events from another tab,
// against the real handler table: the page ends showing what the engine will apply.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../../../../../src/shared/contract'
import type { PriorInfo } from '../../../../../src/shared/custody-types'
import { createHandlers } from '../../../../../src/main/handlers/table'
import { heldPrior, onPriorChanged } from '../../../../../src/main/session/custody-state'
import { AppStore } from '../../../../../src/renderer/src/lib/stores/app-store'
import { appEventHandlers } from '../../../../../src/renderer/src/app/app-events'
import { fakeApi } from '../../test/fake-api'
import { perTest } from '../../../../main/testing/per-test'
import { mulberry32 } from '../../../../main/testing/prng'
import { KEY_HEX, SMALL, writeChainFolder } from '../../../../main/testing/exact-chains'

const per = perTest()
const ctx = { transport: 'ipc', trusted: true } as const
const tick = () => new Promise((r) => setTimeout(r, 0))

async function engine() {
  const path = writeChainFolder(join(per.scratch('bijotel-prior-on-load-'), 'a'), { ...SMALL, rows: 40 })
  const session = per.session()
  const h = createHandlers(session)
  await h.openChain({ path }, ctx)
  await h.setSecrets({ secrets: [{ encoding: 'hex', value: KEY_HEX }] }, ctx)
  const report = JSON.stringify(await h.buildReport({}, ctx))
  return { session, h, report }
}

/**
 * A page as it loads: its currentChain answer held back until `release`, its events delivered
 * through the renderer's own handler table (appEventHandlers), as the transports deliver them.
 */
function page(e: Awaited<ReturnType<typeof engine>>) {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const { api } = fakeApi({
    overrides: {
      currentChain: async () => {
        const answer = structuredClone(await e.h.currentChain(undefined, ctx))
        await gate
        return answer
      },
      runIntegrity: () => new Promise(() => undefined),
      keylessVerdict: async () => null,
      listKeys: async () => structuredClone(await e.h.listKeys(undefined, ctx)),
    } as Partial<ApiClient>,
  })
  const store = new AppStore(api)
  const handlers = appEventHandlers(store, { focusPathBox: () => undefined })
  const stop = onPriorChanged(e.session, (prior) => handlers.priorChanged({ prior: structuredClone(prior) }))
  const shown = (): PriorInfo | null | undefined => store.getState().workspace?.custody.getState().prior
  return { store, release, shown, stop }
}

describe('a page loaded while a prior is held shows it', () => {
  it('the prior held when the page reads its chain (the connect-time event dropped before)', async () => {
    const e = await engine()
    await e.h.setPrior({ text: e.report }, ctx)
    const p = page(e)
    // The connect-time event, as web mode's event stream and a reloaded window send it.
    appEventHandlers(p.store, { focusPathBox: () => undefined }).priorChanged({ prior: heldPrior(e.session) })
    const started = p.store.start()
    p.release()
    await started
    expect(p.shown()).toEqual(heldPrior(e.session))
    expect(p.shown()).not.toBeNull()
    p.stop()
    p.store.dispose()
  })

  it('generated sets and clears by another tab while the page loads: the page ends on the prior held', async () => {
    const rnd = mulberry32(4242)
    for (let round = 0; round < 24; round++) {
      const e = await engine()
      if (rnd() < 0.5) await e.h.setPrior({ text: e.report }, ctx)
      const p = page(e)
      const started = p.store.start()
      // Changes while the page's read is on its way (after the engine answered it, before the page
      // has it), then after the workspace exists.
      const before = Math.floor(rnd() * 3)
      await tick()
      for (let i = 0; i < before; i++)
        await e.h.setPrior(rnd() < 0.5 ? { text: e.report } : { clear: true }, ctx)
      p.release()
      await started
      const after = Math.floor(rnd() * 2)
      for (let i = 0; i < after; i++)
        await e.h.setPrior(rnd() < 0.5 ? { text: e.report } : { clear: true }, ctx)
      await tick()
      expect(p.shown(), `round ${round}: ${before} changes during the load, ${after} after`).toEqual(
        heldPrior(e.session),
      )
      p.stop()
      p.store.dispose()
    }
  }, 120_000)
})
