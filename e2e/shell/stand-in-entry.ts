// The page's stand-in for the Electron preload: the real bridge (src/preload/bridge.ts) over HTTP
// instead of IPC — calls to the shell server's handler table, events from its one stream. Bundled
// for the page by stand-in-bridge.ts and injected before the renderer's own script runs.
import { createBridge, type Reply } from '../../src/preload/bridge'

const CALL_PATH = '/shell/call/'
const EVENTS_PATH = '/shell/events'

const bridge = createBridge({
  invoke: async (name, req) => {
    const res = await fetch(CALL_PATH + name, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ req }),
    })
    return (await res.json()) as Reply
  },
  listen: (listener) => {
    const es = new EventSource(EVENTS_PATH)
    es.onmessage = (ev: MessageEvent<string>) => listener(JSON.parse(ev.data) as unknown)
    // The page can tell the test when it listens (events sent before would be lost, as over IPC
    // before the page has subscribed).
    es.onopen = () => document.documentElement.setAttribute('data-shell-events', 'open')
    return () => es.close()
  },
  // Dropped files carry no path in a browser; the desktop's drop-to-open is not what this suite tests.
  pathForFile: () => '',
})

Object.defineProperty(window, 'bijotel', { value: bridge, enumerable: false })
