// A small stand-in of the `electron` module, so the main process and the preload run in vitest
// without an Electron binary (as Electron Fiddle tests its main process against a mock of
// electron). vitest.config.mts aliases `electron` to this file. It does what the shell's code
// needs and records what it is given: the menu template, IPC handlers, sent events, window state.
// IPC is joined up in memory: ipcRenderer.invoke calls the handler ipcMain registered, with an event
// from the window's main frame, and webContents.send reaches ipcRenderer's listeners.
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

type Fn = (...args: never[]) => unknown
type AnyFn = (...args: unknown[]) => unknown

export interface Frame {
  url: string
}

export class WebContents extends EventEmitter {
  readonly sent: { channel: string; args: unknown[] }[] = []
  readonly mainFrame: Frame = { url: 'app://bijotel/index.html' }
  windowOpenHandler: AnyFn | null = null
  destroyed = false

  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed')
    this.sent.push({ channel, args })
    ipcRenderer.deliver(channel, args)
  }

  isDestroyed(): boolean {
    return this.destroyed
  }

  setWindowOpenHandler(h: AnyFn): void {
    this.windowOpenHandler = h
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly all: BrowserWindow[] = []
  readonly webContents = new WebContents()
  url: string | null = null
  minimized = false
  focused = false
  shown = false
  destroyed = false

  constructor(readonly options: Record<string, unknown>) {
    super()
    BrowserWindow.all.push(this)
    // The shell adds its navigation guards to every web contents as it is created.
    app.emit('web-contents-created', {}, this.webContents)
  }

  loadURL(url: string): Promise<void> {
    this.url = url
    queueMicrotask(() => this.emit('ready-to-show'))
    return Promise.resolve()
  }

  show(): void {
    this.shown = true
  }

  isMinimized(): boolean {
    return this.minimized
  }

  restore(): void {
    this.minimized = false
  }

  focus(): void {
    this.focused = true
  }

  isDestroyed(): boolean {
    return this.destroyed
  }
}

class App extends EventEmitter {
  isPackaged = false
  /** What getPath('userData') answers: set by each test to a temporary folder. */
  userData = ''
  /** Whether requestSingleInstanceLock succeeds (false: another instance runs). */
  lock = true
  quits = 0
  readonly recentDocuments: string[] = []

  whenReady(): Promise<void> {
    return Promise.resolve()
  }

  getPath(name: string): string {
    if (name !== 'userData') throw new Error(`stand-in: getPath(${name}) is not modelled`)
    if (!this.userData) throw new Error('stand-in: set app.userData first')
    return this.userData
  }

  requestSingleInstanceLock(): boolean {
    return this.lock
  }

  quit(): void {
    this.quits++
  }

  addRecentDocument(p: string): void {
    this.recentDocuments.push(p)
  }
}

export const app = new App()

export interface MenuItem {
  label?: string
  role?: string
  type?: string
  accelerator?: string
  enabled?: boolean
  click?: () => void
  submenu?: MenuItem[]
}

export const Menu = {
  /** The template of the application menu last set. */
  current: null as MenuItem[] | null,
  installs: 0,
  buildFromTemplate(template: MenuItem[]): { template: MenuItem[] } {
    return { template }
  },
  setApplicationMenu(menu: { template: MenuItem[] } | null): void {
    Menu.current = menu?.template ?? null
    Menu.installs++
  },
}

export interface InvokeEvent {
  sender: WebContents
  senderFrame: Frame | null
}

export const ipcMain = {
  handlers: new Map<string, (event: InvokeEvent, ...args: unknown[]) => unknown>(),
  handle(channel: string, handler: (event: InvokeEvent, ...args: unknown[]) => unknown): void {
    if (ipcMain.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`)
    ipcMain.handlers.set(channel, handler)
  },
}

export const ipcRenderer = {
  listeners: new Map<string, Set<AnyFn>>(),
  /** The page's window: calls come from its main frame. */
  window(): BrowserWindow {
    const w = BrowserWindow.all[BrowserWindow.all.length - 1]
    if (!w) throw new Error('stand-in: no window to invoke from')
    return w
  },
  async invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    const h = ipcMain.handlers.get(channel)
    if (!h) throw new Error(`No handler registered for '${channel}'`)
    const wc = ipcRenderer.window().webContents
    return h({ sender: wc, senderFrame: wc.mainFrame }, ...args)
  },
  on(channel: string, listener: AnyFn): void {
    let set = ipcRenderer.listeners.get(channel)
    if (!set) ipcRenderer.listeners.set(channel, (set = new Set()))
    set.add(listener)
  },
  removeListener(channel: string, listener: AnyFn): void {
    ipcRenderer.listeners.get(channel)?.delete(listener)
  },
  deliver(channel: string, args: unknown[]): void {
    // Structured clone, as IPC does: the page never shares an object with the main process.
    const copy = structuredClone(args)
    for (const l of [...(ipcRenderer.listeners.get(channel) ?? [])]) l({}, ...copy)
  },
}

export const contextBridge = {
  exposed: {} as Record<string, unknown>,
  exposeInMainWorld(key: string, value: unknown): void {
    contextBridge.exposed[key] = value
  },
}

export const webUtils = {
  getPathForFile(file: { path?: string }): string {
    return file.path ?? ''
  },
}

export const dialog = {
  /** What the next open/save dialog answers (null: cancelled). */
  nextOpen: null as string | null,
  nextSave: null as string | null,
  async showOpenDialog(...args: unknown[]): Promise<{ canceled: boolean; filePaths: string[] }> {
    void args
    const p = dialog.nextOpen
    return p === null ? { canceled: true, filePaths: [] } : { canceled: false, filePaths: [p] }
  },
  async showSaveDialog(...args: unknown[]): Promise<{ canceled: boolean; filePath?: string }> {
    void args
    const p = dialog.nextSave
    return p === null ? { canceled: true } : { canceled: false, filePath: p }
  },
}

export const protocol = {
  privileged: [] as unknown[],
  handlers: new Map<string, (request: { url: string }) => Promise<Response>>(),
  registerSchemesAsPrivileged(schemes: unknown[]): void {
    protocol.privileged.push(...schemes)
  },
  handle(scheme: string, handler: (request: { url: string }) => Promise<Response>): void {
    protocol.handlers.set(scheme, handler)
  },
}

export const session = {
  defaultSession: {
    permissionRequest: null as AnyFn | null,
    permissionCheck: null as AnyFn | null,
    beforeRequest: null as AnyFn | null,
    setPermissionRequestHandler(h: AnyFn): void {
      session.defaultSession.permissionRequest = h
    },
    setPermissionCheckHandler(h: AnyFn): void {
      session.defaultSession.permissionCheck = h
    },
    webRequest: {
      onBeforeRequest(h: AnyFn): void {
        session.defaultSession.beforeRequest = h
      },
    },
  },
}

export const net = {
  /** Only file: URLs (the app:// handler maps its requests to the renderer's files). */
  async fetch(url: string): Promise<Response> {
    try {
      return new Response(readFileSync(fileURLToPath(url)), { status: 200 })
    } catch {
      return new Response('not found', { status: 404 })
    }
  },
}

export const shell = {
  opened: [] as string[],
  async openExternal(url: string): Promise<void> {
    shell.opened.push(url)
  },
}

/** Back to a fresh process: no window, handler, listener, menu or recorded call. */
export function resetElectron(): void {
  BrowserWindow.all.length = 0
  app.removeAllListeners()
  app.isPackaged = false
  app.userData = ''
  app.lock = true
  app.quits = 0
  app.recentDocuments.length = 0
  Menu.current = null
  Menu.installs = 0
  ipcMain.handlers.clear()
  ipcRenderer.listeners.clear()
  contextBridge.exposed = {}
  dialog.nextOpen = null
  dialog.nextSave = null
  protocol.privileged.length = 0
  protocol.handlers.clear()
  session.defaultSession.permissionRequest = null
  session.defaultSession.permissionCheck = null
  session.defaultSession.beforeRequest = null
  shell.opened.length = 0
}

export type { Fn }
