// The main process's wiring, run against the electron stand-in (vitest aliases `electron` to
// ./electron-stand-in.ts) on the shared fixtures: menu → event, the chain the engine holds → the
// page (whoever changed it), recent files, the second instance, the sender check, the window's
// guards. No Electron binary is needed.
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  APP_EVENT_CHANNEL,
  APP_EVENTS,
  type AppEvent,
  type MenuCommand,
} from '../../../src/shared/app-events'
import { IPC_CHANNEL } from '../../../src/shared/contract'
import { startShell, type Shell } from '../../../src/main/app/main'
import { dbPath, fingerprintFolder, REPO_ROOT } from '../testing/fixtures'
import * as electron from './electron-stand-in'
import { BrowserWindow, ipcMain, Menu, app, resetElectron, session, type MenuItem } from './electron-stand-in'

const before = fingerprintFolder()
let userData: string
const shells: Shell[] = []

beforeEach(() => {
  resetElectron()
  userData = mkdtempSync(join(tmpdir(), 'bijotel-shell-'))
  app.userData = userData
})

afterEach(() => {
  for (const s of shells.splice(0)) s.session.dispose()
  rmSync(userData, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

async function start(argv: string[] = ['electron', '.']): Promise<Shell> {
  const shell = await startShell({ mainDir: join(REPO_ROOT, 'out', 'main'), samplePath: null, argv })
  if (!shell) throw new Error('the shell did not start')
  shells.push(shell)
  return shell
}

function win(): BrowserWindow {
  const w = BrowserWindow.all[0]
  if (!w) throw new Error('no window')
  return w
}

/** The events the page was sent, in order. */
function events(): AppEvent[] {
  return win()
    .webContents.sent.filter((m) => m.channel === APP_EVENT_CHANNEL)
    .map((m) => m.args[0] as AppEvent)
}

function chainEvents(): ({ open_id: number; path: string; sha256: string | null } | null)[] {
  return events().flatMap((e) => (e.name === 'chainChanged' ? [e.payload.chain] : []))
}

function items(menu: MenuItem[] | null = Menu.current): MenuItem[] {
  return (menu ?? []).flatMap((m) => [m, ...items(m.submenu ?? [])])
}

function item(label: string): MenuItem {
  const found = items().find((m) => m.label === label)
  if (!found) throw new Error(`no menu item ${label}`)
  return found
}

/** A contract call as the page makes it: through ipcRenderer.invoke to the registered handler. */
async function invoke(
  name: string,
  req?: unknown,
): Promise<{ ok: boolean; value?: unknown; error?: unknown }> {
  return (await electron.ipcRenderer.invoke(IPC_CHANNEL, name, req)) as {
    ok: boolean
    value?: unknown
    error?: unknown
  }
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (cond()) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const sha = (name: string): string =>
  createHash('sha256')
    .update(readFileSync(dbPath(name)))
    .digest('hex')

describe('menu → event', () => {
  const COMMANDS: Record<string, MenuCommand> = {
    'Open chain.db…': 'menuOpen',
    'Close chain': 'menuClose',
    'Export integrity report…': 'menuExport',
    'Copy report as JSON': 'menuCopyReport',
    'Verify chain': 'menuVerify',
    'Run integrity monitor': 'menuIntegrity',
  }

  it('each command is its contract event on the one event channel, and every menu event has an item', async () => {
    await start()
    for (const [label, name] of Object.entries(COMMANDS)) {
      item(label).click!()
      expect(events().at(-1)).toEqual({ name, payload: null })
    }
    const menuEvents = APP_EVENTS.filter((n) => n.startsWith('menu'))
    expect(Object.values(COMMANDS).sort()).toEqual([...menuEvents].sort())
    // Nothing else is sent on any other channel.
    expect(new Set(win().webContents.sent.map((m) => m.channel))).toEqual(new Set([APP_EVENT_CHANNEL]))
  })

  it('has the standard Edit menu, so keys can be pasted (macOS needs the menu items for the shortcuts)', async () => {
    await start()
    const edit = Menu.current!.find((m) => m.label === '&Edit')!
    const roles = edit.submenu!.map((m) => m.role).filter(Boolean)
    for (const r of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']) expect(roles).toContain(r)
  })

  it('File → Open Recent lists "(none)" before anything was opened', async () => {
    await start()
    const recent = item('Open Recent')
    expect(recent.submenu).toEqual([{ label: '(none)', enabled: false }])
  })
})

describe('the chain the engine holds is told to the page', () => {
  it('an open from the page: chainChanged with path and SHA-256 of chain.db, before the answer', async () => {
    await start()
    let sentBeforeAnswer = -1
    const answer = invoke('openChain', { path: dbPath('clean') }).then((r) => {
      sentBeforeAnswer = chainEvents().length
      return r
    })
    expect((await answer).ok).toBe(true)
    expect(sentBeforeAnswer).toBe(1)
    expect(chainEvents()).toEqual([{ open_id: 1, path: dbPath('clean'), sha256: sha('clean') }])
  })

  it('Open Recent opens in the engine, tells the page, and the recent list is kept on disk', async () => {
    const shell = await start()
    expect((await invoke('openChain', { path: dbPath('clean') })).ok).toBe(true)
    expect((await invoke('openChain', { path: dbPath('burst') })).ok).toBe(true)
    const file = join(userData, 'recent.json')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([dbPath('burst'), dbPath('clean')])
    expect(app.recentDocuments.at(-1)).toBe(dbPath('burst'))
    // The menu was rebuilt with both; choosing clean.db makes it the engine's chain again.
    const entries = item('Open Recent').submenu!
    expect(entries.map((m) => m.label)).toEqual([dbPath('burst'), dbPath('clean')])
    entries[1]!.click!()
    await until(() => chainEvents().length === 3, 'the Open Recent event')
    expect(chainEvents()[2]).toEqual({ open_id: 3, path: dbPath('clean'), sha256: sha('clean') })
    const held = (await invoke('currentChain')).value as { chain: unknown; overview: { entries: number } }
    expect(held.chain).toEqual(chainEvents()[2])
    expect(held.overview.entries).toBe(240)
    expect(shell.session.identity()).toEqual(chainEvents()[2])
  })

  it('Open Recent of a file that is gone: openFailed with a one-line reason, the chain held stays', async () => {
    const gone = join(userData, 'moved-away.db')
    writeFileSync(join(userData, 'recent.json'), JSON.stringify([gone]))
    await start()
    expect((await invoke('openChain', { path: dbPath('clean') })).ok).toBe(true)
    item(gone).click!()
    await until(() => events().some((e) => e.name === 'openFailed'), 'openFailed')
    const failed = events().find((e) => e.name === 'openFailed')!
    expect(failed.payload).toMatchObject({ path: gone })
    const message = (failed.payload as { message: string }).message
    expect(message.length).toBeGreaterThan(5)
    expect(message).not.toContain('\n')
    expect(chainEvents()).toHaveLength(1)
  })

  it('Open Recent shows a path as data (bidi, zero-width, line breaks numbered; & literal) and opens the exact path', async () => {
    // Folder names an insider chooses, one code point of each kind printable() numbers, and a `&`.
    const marks = [
      '\u202e',
      '\u2066',
      '\u200b',
      '\u2028',
      '\n',
      '\r',
      '\u001b',
      '\u0085',
      '\ufeff',
      '\u{e0041}',
    ]
    const paths = marks.map((m, i) => join(userData, `case${i}${m}fdp&x`, 'chain.db'))
    writeFileSync(join(userData, 'recent.json'), JSON.stringify(paths))
    await start()
    const entries = item('Open Recent').submenu!
    expect(entries).toHaveLength(paths.length)
    for (const [i, m] of entries.entries()) {
      expect(m.label).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u)
      expect(m.label).toContain('<U+')
      // One `&` of the path is `&&`: a literal ampersand, no mnemonic (Linux here).
      expect(m.label).toMatch(/fdp&&x/)
      expect(m.label).not.toMatch(/[^&]&[^&]/)
      m.click!()
      await until(() => events().filter((e) => e.name === 'openFailed').length === i + 1, 'openFailed')
      expect(events().filter((e) => e.name === 'openFailed')[i]!.payload).toMatchObject({ path: paths[i] })
    }
  })

  it('a second instance opens its file here, tells the page, and brings the window back', async () => {
    await start()
    win().minimized = true
    app.emit('second-instance', {}, ['electron', '.', '--flag', dbPath('rotation')], userData)
    await until(() => chainEvents().length === 1, 'the second instance event')
    expect(chainEvents()[0]).toEqual({ open_id: 1, path: dbPath('rotation'), sha256: sha('rotation') })
    expect(win().minimized).toBe(false)
    expect(win().focused).toBe(true)
  })

  it('a second instance with no file only brings the window back', async () => {
    await start()
    app.emit('second-instance', {}, ['electron', '.'], userData)
    expect(win().focused).toBe(true)
    expect(chainEvents()).toEqual([])
  })

  it('closing the chain (File → Close asks the page, the page calls closeChain) tells null', async () => {
    await start()
    expect((await invoke('openChain', { path: dbPath('clean') })).ok).toBe(true)
    expect((await invoke('closeChain')).ok).toBe(true)
    expect(chainEvents().at(-1)).toBeNull()
    expect((await invoke('currentChain')).value).toBeNull()
  })

  it('the dialog open (pickAndOpenChain) is announced too; a cancelled dialog changes nothing', async () => {
    await start()
    electron.dialog.nextOpen = null
    expect((await invoke('pickAndOpenChain')).value).toBeNull()
    expect(chainEvents()).toEqual([])
    electron.dialog.nextOpen = dbPath('burst')
    expect((await invoke('pickAndOpenChain')).ok).toBe(true)
    expect(chainEvents()).toEqual([{ open_id: 1, path: dbPath('burst'), sha256: sha('burst') }])
  })

  it('a window that is gone is not sent to (quitting closes the chain)', async () => {
    const shell = await start()
    expect((await invoke('openChain', { path: dbPath('clean') })).ok).toBe(true)
    win().destroyed = true
    win().webContents.destroyed = true
    expect(() => shell.session.dispose()).not.toThrow()
  })
})

describe('start-up', () => {
  it('a chain path on the command line is the initial path; recent files come from the app-data folder', async () => {
    writeFileSync(join(userData, 'recent.json'), JSON.stringify([dbPath('burst'), 42]))
    await start(['electron', '.', dbPath('clean')])
    const info = (await invoke('appInfo')).value as Record<string, unknown>
    expect(info).toMatchObject({
      transport: 'ipc',
      has_dialogs: true,
      can_open_paths: true,
      initial_path: dbPath('clean'),
      recent_paths: [dbPath('burst')],
    })
    expect(win().url).toBe('app://bijotel/index.html')
  })

  it('a second instance hands over and quits', async () => {
    app.lock = false
    expect(
      await startShell({ mainDir: join(REPO_ROOT, 'out', 'main'), samplePath: null, argv: [] }),
    ).toBeNull()
    expect(app.quits).toBe(1)
    expect(BrowserWindow.all).toHaveLength(0)
  })

  it('npm run dev: the window loads the dev server, whose requests (http and its HMR socket) are let through', async () => {
    await startShell({
      mainDir: join(REPO_ROOT, 'out', 'main'),
      samplePath: null,
      argv: [],
      devServerUrl: 'http://localhost:5173',
    }).then((s) => s && shells.push(s))
    expect(win().url).toBe('http://localhost:5173')
    const decide = (url: string): boolean => {
      let cancel = true
      session.defaultSession.beforeRequest!({ url }, (r: { cancel: boolean }) => (cancel = r.cancel))
      return !cancel
    }
    expect(decide('http://localhost:5173/src/main.tsx')).toBe(true)
    expect(decide('ws://localhost:5173/')).toBe(true)
    expect(decide('http://localhost:5174/')).toBe(false)
    expect(decide('https://example.com/')).toBe(false)
    // The dev server's page may call the API; any other origin may not.
    const handler = ipcMain.handlers.get(IPC_CHANNEL)!
    const wc = win().webContents
    const call = async (url: string) => {
      wc.mainFrame.url = url
      return (
        (await handler({ sender: wc, senderFrame: wc.mainFrame }, 'appInfo', undefined)) as { ok: boolean }
      ).ok
    }
    expect(await call('http://localhost:5173/')).toBe(true)
    expect(await call('http://localhost:5174/')).toBe(false)
  })
})

describe('sender validation and the window guards', () => {
  it('only the app page’s main frame may call the API', async () => {
    await start()
    const handler = ipcMain.handlers.get(IPC_CHANNEL)!
    const wc = win().webContents
    const call = (senderFrame: { url: string } | null) =>
      handler({ sender: wc, senderFrame }, 'appInfo', undefined) as Promise<{
        ok: boolean
        error?: { code: string }
      }>
    expect((await call(wc.mainFrame)).ok).toBe(true)
    expect(await call({ url: 'app://bijotel/index.html' })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    })
    wc.mainFrame.url = 'https://evil.example/'
    expect(await call(wc.mainFrame)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    wc.mainFrame.url = 'file:///etc/passwd'
    expect(await call(wc.mainFrame)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect(await call(null)).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    wc.mainFrame.url = 'app://bijotel/index.html'
    const bad = (await handler({ sender: wc, senderFrame: wc.mainFrame }, 42, undefined)) as { ok: boolean }
    expect(bad.ok).toBe(false)
  })

  it('denies permissions, remote requests, navigation and new windows', async () => {
    await start()
    const ds = session.defaultSession
    let granted: boolean | null = null
    ds.permissionRequest!({}, 'media', (ok: boolean) => (granted = ok))
    expect(granted).toBe(false)
    expect(ds.permissionCheck!()).toBe(false)
    let cancel: boolean | null = null
    ds.beforeRequest!({ url: 'https://example.com/x.js' }, (r: { cancel: boolean }) => (cancel = r.cancel))
    expect(cancel).toBe(true)
    ds.beforeRequest!(
      { url: 'app://bijotel/assets/index.js' },
      (r: { cancel: boolean }) => (cancel = r.cancel),
    )
    expect(cancel).toBe(false)
    const wc = win().webContents
    let prevented = false
    wc.emit('will-navigate', { preventDefault: () => (prevented = true) }, 'https://example.com/')
    expect(prevented).toBe(true)
    expect(wc.windowOpenHandler!({ url: 'https://docs.example/' })).toEqual({ action: 'deny' })
    expect(electron.shell.opened).toEqual(['https://docs.example/'])
    expect(wc.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' })
    expect(electron.shell.opened).toHaveLength(1)
  })

  it('app:// serves the renderer’s files with the CSP header, and nothing outside its folder', async () => {
    await start()
    const serve = electron.protocol.handlers.get('app')!
    const index = join(REPO_ROOT, 'out', 'renderer', 'index.html')
    if (existsSync(index)) {
      const res = await serve({ url: 'app://bijotel/index.html' })
      expect(res.status).toBe(200)
      expect(res.headers.get('Content-Security-Policy')).toContain("script-src 'self'")
    }
    expect((await serve({ url: 'app://bijotel/../../package.json' })).status).toBe(404)
    expect((await serve({ url: 'app://other/index.html' })).status).toBe(404)
  })
})
