// The Electron shell's security policy, as plain data and pure functions so it can be inspected
// by tests without an Electron binary (this file imports no Electron runtime).
import { isAbsolute, relative, resolve } from 'node:path'

export const APP_SCHEME = 'app'
export const APP_HOST = 'bijotel'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`

/** Same policy as the meta tag in src/renderer/index.html, also sent as a header. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export function webPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    devTools: process.env['BIJOTEL_DEVTOOLS'] === '1',
  } as const
}

/** Only the app's own page may call the API. */
export function isAllowedSenderUrl(url: string | undefined, devServerUrl?: string): boolean {
  if (!url) return false
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  if (u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST) return true
  if (devServerUrl) {
    try {
      return u.origin === new URL(devServerUrl).origin
    } catch {
      return false
    }
  }
  return false
}

/** Navigation away from the app page is never allowed (no remote content). */
export function isAllowedNavigation(url: string, devServerUrl?: string): boolean {
  if (!isAllowedSenderUrl(url, devServerUrl)) return false
  const path = new URL(url).pathname
  return (
    path === '/index.html' ||
    (devServerUrl !== undefined && !url.startsWith(`${APP_SCHEME}:`) && path === '/')
  )
}

/** A request to `npm run dev`'s renderer server: its files over http, its HMR socket over ws. */
export function isDevServerRequest(url: string, devServerUrl?: string): boolean {
  if (!devServerUrl) return false
  try {
    const dev = new URL(devServerUrl)
    const u = new URL(url)
    if (u.host !== dev.host) return false
    return u.protocol === dev.protocol || u.protocol === (dev.protocol === 'https:' ? 'wss:' : 'ws:')
  } catch {
    return false
  }
}

export function denyWindowOpen(): { action: 'deny' } {
  return { action: 'deny' }
}

/** Map an app:// request path to a file inside the renderer folder, or null (path traversal). */
export function resolveAppFile(rendererDir: string, requestUrl: string): string | null {
  let u: URL
  try {
    u = new URL(requestUrl)
  } catch {
    return null
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null
  const rel = decodeURIComponent(u.pathname).replace(/^\/+/, '') || 'index.html'
  const file = resolve(rendererDir, rel)
  const r = relative(rendererDir, file)
  if (r.startsWith('..') || isAbsolute(r)) return null
  return file
}

export const RESPONSE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
}
