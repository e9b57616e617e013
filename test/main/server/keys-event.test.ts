// The keys held belong to the session, not to a tab: when any client replaces them (setSecrets),
// every page's event stream says so (`keysChanged`, fingerprints only), before the call answers, so
// no other tab keeps a verdict or replay words made under keys no longer held. The event never
// carries a secret. Generated key sets (hex and text, one to several keys, kept and added).
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { APP_TOKEN_HEADER } from '../../../src/main/server/auth'
import { mulberry32 } from '../testing/prng'
import { serveForSuite } from '../testing/served'
import { callApi, readSse, writeSyntheticChain, type SseEvent } from './testkit'

const served = serveForSuite({
  prefix: 'bijotel-keys-event-',
  openRoots: (dir) => [dir],
  written: (dir) => {
    const chain = join(dir, 'chain.db')
    writeSyntheticChain(chain, 20, Buffer.from('k'.repeat(32)))
    return chain
  },
})

describe('keysChanged: every page is told when any client replaces the keys', () => {
  it('generated key sets: each setSecrets is one event in another page, fingerprints only', async () => {
    const rnd = mulberry32(4242)
    const secrets: string[] = []
    const expected: unknown[] = []
    const events: SseEvent[] = []
    const rounds = 12
    const sse = readSse(`${served.base}/api/events`, {
      onEvent: (e) => void (e.event === 'keysChanged' && events.push(e)),
      until: () => events.length >= rounds,
    })
    await new Promise((r) => setTimeout(r, 100))
    for (let i = 0; i < rounds; i++) {
      const n = 1 + Math.floor(rnd() * 3)
      const set = Array.from({ length: n }, () =>
        rnd() < 0.5
          ? {
              encoding: 'hex',
              value: Array.from({ length: 32 }, () =>
                Math.floor(rnd() * 256)
                  .toString(16)
                  .padStart(2, '0'),
              ).join(''),
            }
          : { encoding: 'text', value: `secret-${Math.floor(rnd() * 1e9)}-text-key` },
      )
      for (const s of set) secrets.push(s.value)
      const keep = i > 0 && rnd() < 0.5 ? [0] : []
      const r = await callApi(
        served.base,
        'setSecrets',
        keep.length ? { secrets: set, keep } : { secrets: set },
        {
          [APP_TOKEN_HEADER]: served.token,
        },
      )
      expect(r.status).toBe(200)
      expected.push({ keys: r.json })
    }
    await sse
    expect(events.map((e) => e.data)).toEqual(expected)
    const text = JSON.stringify(events)
    for (const s of secrets) expect(text).not.toContain(s)
  })

  it('a refused setSecrets (a bad key) sends nothing', async () => {
    const events: SseEvent[] = []
    const sse = readSse(`${served.base}/api/events`, {
      onEvent: (e) => void (e.event === 'keysChanged' && events.push(e)),
      until: (e) => e.event === 'keysChanged',
    })
    await new Promise((r) => setTimeout(r, 100))
    const bad = await callApi(
      served.base,
      'setSecrets',
      { secrets: [{ encoding: 'hex', value: 'zz' }] },
      { [APP_TOKEN_HEADER]: served.token },
    )
    expect(bad.status).toBe(400)
    const ok = await callApi(
      served.base,
      'setSecrets',
      { secrets: [{ encoding: 'text', value: 'the-one-after' }] },
      { [APP_TOKEN_HEADER]: served.token },
    )
    await sse
    expect(events.map((e) => e.data)).toEqual([{ keys: ok.json }])
  })
})
