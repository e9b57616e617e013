// The app's IPC channel against renderers that are not the app's own page, and against arguments
// of every wrong type, shape and size (generated). Electron's `event.sender` is whichever renderer
// invoked: a second window showing the app's URL, a subframe, a page the window navigated to.
// Only the app window's main frame at the app's URL is served; everything else is `forbidden`,
// for every call of the contract. From the app's frame, a call with a wrong argument is a
// one-line refusal (never `internal`, never a throw through IPC, never a reply echoing megabytes).
// On the old code a second window whose page was the app's URL was served every call.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { API_CALLS, IPC_CHANNEL } from '../../../src/shared/contract'
import { startShell, type Shell } from '../../../src/main/app/main'
import { dbPath, fingerprintFolder, REPO_ROOT } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'
import { BrowserWindow, app, ipcMain, resetElectron } from './electron-stand-in'

const before = fingerprintFolder()
let userData: string
const shells: Shell[] = []
beforeEach(() => {
  resetElectron()
  userData = mkdtempSync(join(tmpdir(), 'bijotel-ipc-senders-'))
  app.userData = userData
})
afterEach(() => {
  for (const s of shells.splice(0)) s.session.dispose()
  rmSync(userData, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

type Reply = { ok: boolean; value?: unknown; error?: { error: string; code: string } }
type Handler = (event: unknown, ...args: unknown[]) => Promise<Reply>

async function shell(): Promise<{ handler: Handler; appWindow: BrowserWindow }> {
  const s = await startShell({
    mainDir: join(REPO_ROOT, 'out', 'main'),
    samplePath: null,
    argv: ['electron', '.'],
  })
  if (!s) throw new Error('the shell did not start')
  shells.push(s)
  const handler = ipcMain.handlers.get(IPC_CHANNEL) as unknown as Handler
  return { handler, appWindow: BrowserWindow.all[0]! }
}

/** Calls that open a dialog or write a file: not called with generated arguments from the app frame. */
const SIDE_EFFECTS = new Set(['pickAndOpenChain', 'saveReport', 'saveViewExport', 'pickSigningKey'])

describe('a renderer that is not the app page is refused every call', () => {
  it('a second window, a subframe, a navigated page, a destroyed frame: forbidden for each call', async () => {
    const { handler, appWindow } = await shell()
    const other = new BrowserWindow({}) // its page is the app's URL too
    const wc = appWindow.webContents
    const senders: [string, () => unknown][] = [
      [
        'a second window at the app URL',
        () => ({ sender: other.webContents, senderFrame: other.webContents.mainFrame }),
      ],
      ['a subframe at the app URL', () => ({ sender: wc, senderFrame: { url: 'app://bijotel/index.html' } })],
      ['a subframe elsewhere', () => ({ sender: wc, senderFrame: { url: 'https://evil.example/' } })],
      ['no frame (gone)', () => ({ sender: wc, senderFrame: null })],
      [
        'another web contents with the window frame',
        () => ({ sender: other.webContents, senderFrame: wc.mainFrame }),
      ],
    ]
    for (const [who, event] of senders)
      for (const name of [...API_CALLS, 'nope', 42, null]) {
        const r = await handler(event(), name, { path: '/etc/passwd', secrets: [{ value: 'aa' }] })
        expect(r, `${who}: ${String(name)}`).toMatchObject({ ok: false, error: { code: 'forbidden' } })
      }
    // A navigated app window (its main frame now another page) is refused too.
    for (const url of [
      'https://evil.example/',
      'app://evil/index.html',
      'file:///etc/passwd',
      'data:text/html,x',
    ]) {
      wc.mainFrame.url = url
      const r = await handler({ sender: wc, senderFrame: wc.mainFrame }, 'appInfo', undefined)
      expect(r, url).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    }
    wc.mainFrame.url = 'app://bijotel/index.html'
    expect((await handler({ sender: wc, senderFrame: wc.mainFrame }, 'appInfo', undefined)).ok).toBe(true)
  })
})

describe("the app's frame with arguments of the wrong type, shape and size", () => {
  const rnd = mulberry32(6)
  const big = 'x'.repeat(2_000_000)
  const deep = (n: number): unknown => {
    let v: unknown = {}
    for (let i = 0; i < n; i++) v = { path: v, seq: v, secrets: [v] }
    return v
  }
  const values: unknown[] = [
    undefined,
    null,
    0,
    -1,
    1e308,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '',
    big,
    '\u202e\u0000',
    [],
    [1, 2, 3],
    {},
    Object.create(null),
    { seq: '1' },
    { seq: 2 ** 64 },
    { seq: -0 },
    { path: 123 },
    { path: ['a'] },
    { path: big },
    { path: 'relative/chain.db' },
    { secrets: 'aa' },
    { secrets: [{ value: 1 }] },
    { secrets: Array.from({ length: 100 }, () => ({ value: 'aa' })) },
    { offset: -1, limit: 1e9 },
    { range: { seq_start: 'a' } },
    { window: 1.5 },
    { text: 7, seq: 1 },
    { file_base64: big, seq: 1 },
    { id: big },
    { ['__proto__']: { trusted: true } },
    JSON.parse('{"__proto__": {"polluted": 1}}'),
    deep(2000),
  ]
  it('every call, 20 generated arguments each: a refusal naming the problem, or an answer; never internal', async () => {
    const { handler, appWindow } = await shell()
    const wc = appWindow.webContents
    const event = { sender: wc, senderFrame: wc.mainFrame }
    // A chain held, so each call's arguments are read (without one most calls stop at 'no chain').
    await shells[0]!.session.open(dbPath('clean'))
    for (const name of API_CALLS) {
      if (SIDE_EFFECTS.has(name)) continue
      for (let i = 0; i < 20; i++) {
        const req = values[Math.floor(rnd() * values.length)]
        let r: Reply
        try {
          r = await handler(event, name, req)
        } catch (e) {
          throw new Error(`${name} threw through IPC: ${(e as Error).message}`)
        }
        const what = `${name}(${typeof req === 'string' ? `string of ${req.length}` : typeof req})`
        expect(typeof r.ok, what).toBe('boolean')
        if (!r.ok) {
          expect(r.error!.code, `${what}: ${r.error!.error.slice(0, 300)}`).not.toBe('internal')
          expect(r.error!.error.length, what).toBeLessThan(2000)
          expect(r.error!.error, what).not.toMatch(/\n\s+at /)
        }
      }
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(({} as Record<string, unknown>)['trusted']).toBeUndefined()
  }, 120_000)

  it('a call name of any type or size: refused in one short line', async () => {
    const { handler, appWindow } = await shell()
    const wc = appWindow.webContents
    for (const name of [
      big,
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '',
      {},
      [],
      1,
      undefined,
    ]) {
      const r = await handler({ sender: wc, senderFrame: wc.mainFrame }, name, undefined)
      expect(r.ok, String(name).slice(0, 20)).toBe(false)
      expect(r.error!.error.length).toBeLessThan(300)
    }
  })
})
