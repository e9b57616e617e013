// How events reach the renderer: the preload's channel when there is one, else the server's event
// stream (one EventSource, a listener per name of APP_EVENTS); and the handler table's dispatch.
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  APP_EVENTS,
  APP_EVENTS_PATH,
  type AppEvent,
  type AppEventHandlers,
} from '../../../../src/shared/app-events'
import {
  handleAppEvent,
  subscribeAppEvents,
  subscribeServerEvents,
} from '../../../../src/renderer/src/lib/bridge'

class FakeEventSource {
  static last: FakeEventSource | null = null
  readonly listeners = new Map<string, (ev: { data: string }) => void>()
  closed = false
  constructor(readonly url: string) {
    FakeEventSource.last = this
  }
  addEventListener(name: string, l: (ev: { data: string }) => void): void {
    this.listeners.set(name, l)
  }
  close(): void {
    this.closed = true
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('events in the renderer', () => {
  it('web mode: one stream, every event name listened to, payloads parsed, bad data dropped', () => {
    const seen: AppEvent[] = []
    const stop = subscribeServerEvents((e) => seen.push(e), FakeEventSource as unknown as typeof EventSource)
    const es = FakeEventSource.last!
    expect(es.url).toBe(APP_EVENTS_PATH)
    expect([...es.listeners.keys()].sort()).toEqual([...APP_EVENTS].sort())
    es.listeners.get('chainChanged')!({ data: '{"chain":null}' })
    es.listeners.get('menuVerify')!({ data: 'null' })
    es.listeners.get('openFailed')!({ data: '{not json' })
    expect(seen).toEqual([
      { name: 'chainChanged', payload: { chain: null } },
      { name: 'menuVerify', payload: null },
    ])
    stop()
    expect(es.closed).toBe(true)
  })

  it('the desktop app: the preload’s onEvent', () => {
    const listeners: ((e: AppEvent) => void)[] = []
    vi.stubGlobal('window', {
      bijotel: { api: {}, onEvent: (l: (e: AppEvent) => void) => (listeners.push(l), () => undefined) },
    })
    const seen: AppEvent[] = []
    subscribeAppEvents((e) => seen.push(e))
    listeners[0]!({ name: 'menuOpen', payload: null })
    expect(seen).toEqual([{ name: 'menuOpen', payload: null }])
  })

  it('handleAppEvent calls the handler of the event’s name with its payload', () => {
    const got: string[] = []
    const handlers = Object.fromEntries(
      APP_EVENTS.map((n) => [n, (p: unknown) => got.push(`${n}:${JSON.stringify(p)}`)]),
    ) as unknown as AppEventHandlers
    handleAppEvent(handlers, { name: 'openFailed', payload: { path: '/x.db', message: 'gone' } })
    expect(got).toEqual(['openFailed:{"path":"/x.db","message":"gone"}'])
  })
})
