// The shell's hardening, inspected without an Electron binary: the window options, the CSP, the
// sender check, navigation and window.open policies, and the app:// file mapping.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../testing/fixtures'
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  denyWindowOpen,
  isAllowedNavigation,
  isAllowedSenderUrl,
  resolveAppFile,
  RESPONSE_HEADERS,
  webPreferences,
} from '../../../src/main/app/security'

describe('Electron hardening', () => {
  it('isolates and sandboxes the renderer, with no Node in any frame', () => {
    const p = webPreferences('/x/preload.js')
    expect(p.contextIsolation).toBe(true)
    expect(p.sandbox).toBe(true)
    expect(p.nodeIntegration).toBe(false)
    expect(p.nodeIntegrationInWorker).toBe(false)
    expect(p.nodeIntegrationInSubFrames).toBe(false)
    expect(p.webSecurity).toBe(true)
    expect(p.allowRunningInsecureContent).toBe(false)
    expect(p.webviewTag).toBe(false)
    expect(p.navigateOnDragDrop).toBe(false)
  })

  it('sends a strict CSP that matches the page meta tag', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'")
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/)
    expect(RESPONSE_HEADERS['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY)
    const html = readFileSync(join(REPO_ROOT, 'src/renderer/index.html'), 'utf8')
    expect(html).toContain(CONTENT_SECURITY_POLICY)
  })

  it('accepts IPC only from the app page', () => {
    expect(isAllowedSenderUrl(APP_ENTRY_URL)).toBe(true)
    expect(isAllowedSenderUrl('https://evil.example/index.html')).toBe(false)
    expect(isAllowedSenderUrl('file:///tmp/index.html')).toBe(false)
    expect(isAllowedSenderUrl('app://other/index.html')).toBe(false)
    expect(isAllowedSenderUrl(undefined)).toBe(false)
    expect(isAllowedSenderUrl('not a url')).toBe(false)
  })

  it('denies navigation elsewhere and every window.open', () => {
    expect(isAllowedNavigation(APP_ENTRY_URL)).toBe(true)
    expect(isAllowedNavigation('https://example.com/')).toBe(false)
    expect(isAllowedNavigation('app://bijotel/other.html')).toBe(false)
    expect(denyWindowOpen()).toEqual({ action: 'deny' })
  })

  it('serves only files inside the renderer folder', () => {
    expect(resolveAppFile('/r', 'app://bijotel/index.html')).toBe('/r/index.html')
    expect(resolveAppFile('/r', 'app://bijotel/assets/a.js')).toBe('/r/assets/a.js')
    expect(resolveAppFile('/r', 'app://bijotel/../../etc/passwd')).toBe('/r/etc/passwd')
    expect(resolveAppFile('/r', 'app://bijotel/%2e%2e/%2e%2e/etc/passwd')).toBe('/r/etc/passwd')
    expect(resolveAppFile('/r', 'app://bijotel/..%2f..%2fetc%2fpasswd')).toBeNull()
    expect(resolveAppFile('/r', 'app://elsewhere/index.html')).toBeNull()
  })
})
