// The prior the next verify compares with is the session's, not a tab's. Before, a page loaded (or
// reloaded, or another tab) while a prior was held showed "no prior" — its custody store never read
// it — and its next verify applied it all the same: "prior head …" findings under a panel saying
// none was chosen. Now every page's event stream carries the prior held when it connects and at
// every set or clear by any client (`priorChanged`), and the page shows it. Generated sequences of
// sets and clears from two clients, each event checked against what the engine then applies.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { APP_TOKEN_HEADER } from '../../../src/main/server/auth'
import { heldPrior } from '../../../src/main/session/custody-state'
import { mulberry32 } from '../testing/prng'
import { serveForSuite } from '../testing/served'
import { callApi, readSse, writeSyntheticChain, type SseEvent } from './testkit'

const served = serveForSuite({
  prefix: 'bijotel-prior-event-',
  openRoots: (dir) => [dir],
  written: (dir) => {
    const chain = join(dir, 'chain.db')
    writeSyntheticChain(chain, 30, Buffer.from('k'.repeat(32)))
    return chain
  },
})

const events = (until: (e: SseEvent[]) => boolean) => {
  const got: SseEvent[] = []
  const done = readSse(`${served.base}/api/events`, {
    onEvent: (e) => void (e.event === 'priorChanged' && got.push(e)),
    until: () => until(got),
  })
  return { got, done }
}

describe('priorChanged: every page shows the prior the engine will apply', () => {
  it('generated sets and clears: one event each, the prior held; a page connecting learns it', async () => {
    const report = (await callApi(served.base, 'buildReport', {}, { [APP_TOKEN_HEADER]: served.token })).json
    expect(report).toHaveProperty('generated_at')
    const rnd = mulberry32(99)
    const steps = Array.from({ length: 10 }, () => rnd() < 0.6)
    const s = events((g) => g.length >= steps.length)
    await new Promise((r) => setTimeout(r, 100))
    const want: unknown[] = []
    for (const set of steps) {
      const r = await callApi(
        served.base,
        'setPrior',
        set ? { text: JSON.stringify(report) } : { clear: true },
        {
          [APP_TOKEN_HEADER]: served.token,
        },
      )
      expect(r.status).toBe(200)
      want.push({ prior: heldPrior(served.session) })
      expect(r.json).toEqual(heldPrior(served.session))
    }
    await s.done
    expect(s.got.map((e) => e.data)).toEqual(want)
    // A page connecting now learns the prior held (or hears nothing of one when none is).
    await callApi(
      served.base,
      'setPrior',
      { text: JSON.stringify(report) },
      { [APP_TOKEN_HEADER]: served.token },
    )
    const late = events((g) => g.length >= 1)
    await late.done
    expect(late.got.map((e) => e.data)).toEqual([{ prior: heldPrior(served.session) }])
    expect(heldPrior(served.session)).not.toBeNull()
  })
})
