// The main window and its session's guards: CSP on every response, no permissions, no navigation,
// no new windows, no remote content.
import { app, BrowserWindow, net, protocol, session, shell } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  denyWindowOpen,
  isAllowedNavigation,
  isDevServerRequest,
  resolveAppFile,
  RESPONSE_HEADERS,
  webPreferences,
} from './security'

export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false },
    },
  ])
}

/** `devServerUrl`: `npm run dev`'s renderer server, the one origin allowed besides app:// (http and its HMR socket). */
export function hardenDefaultSession(rendererDir: string, devServerUrl?: string): void {
  const ses = session.defaultSession
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  ses.setPermissionCheckHandler(() => false)
  ses.webRequest.onBeforeRequest((details, callback) => {
    // Only the app's own files; anything else (http, https, ws, file) is cancelled.
    const ok =
      details.url.startsWith(`${APP_SCHEME}://`) ||
      details.url.startsWith('devtools://') ||
      isDevServerRequest(details.url, devServerUrl)
    callback({ cancel: !ok })
  })
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveAppFile(rendererDir, request.url)
    if (!file) return new Response('not found', { status: 404 })
    const res = await net.fetch(pathToFileURL(file).toString())
    const headers = new Headers(res.headers)
    for (const [k, v] of Object.entries(RESPONSE_HEADERS)) headers.set(k, v)
    return new Response(res.body, { status: res.status, headers })
  })
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url, devServerUrl)) event.preventDefault()
    })
    contents.on('will-redirect', (event) => event.preventDefault())
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.setWindowOpenHandler(({ url }) => {
      // Links out (e.g. docs) open in the system browser, never inside the app.
      if (url.startsWith('https://')) void shell.openExternal(url)
      return denyWindowOpen()
    })
  })
}

export function createMainWindow(preloadDir: string, devServerUrl?: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1360,
    height: 880,
    minWidth: 900,
    minHeight: 600,
    title: 'BIJOTEL Auditor',
    show: false,
    backgroundColor: '#111418',
    webPreferences: webPreferences(join(preloadDir, 'index.js')),
  })
  win.once('ready-to-show', () => win.show())
  void win.loadURL(devServerUrl ?? APP_ENTRY_URL)
  return win
}
