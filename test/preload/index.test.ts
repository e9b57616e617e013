// The preload against the electron stand-in, joined to the real main process over the stand-in's
// in-memory IPC: what it exposes (the contract, the events, the dropped-file path, nothing else),
// calls reaching the one handler table, errors as one line with their code, and events filtered by
// the contract's names.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APP_EVENT_CHANNEL, type AppEvent } from '../../src/shared/app-events'
import { API_CALLS } from '../../src/shared/contract'
import type { Bridge } from '../../src/preload/bridge'
import { startShell, type Shell } from '../../src/main/app/main'
import { app, BrowserWindow, contextBridge, resetElectron } from '../main/app/electron-stand-in'
import { dbPath, fingerprintFolder, REPO_ROOT } from '../main/testing/fixtures'

const before = fingerprintFolder()
let userData: string
let shell: Shell
let bridge: Bridge

beforeAll(async () => {
  resetElectron()
  userData = mkdtempSync(join(tmpdir(), 'bijotel-preload-'))
  app.userData = userData
  shell = (await startShell({ mainDir: join(REPO_ROOT, 'out', 'main'), samplePath: null, argv: [] }))!
  await import('../../src/preload/index')
  bridge = contextBridge.exposed['bijotel'] as Bridge
})

afterAll(() => {
  shell.session.dispose()
  rmSync(userData, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

describe('preload', () => {
  it('exposes window.bijotel only: every call of the contract, onEvent and pathForFile', () => {
    expect(Object.keys(contextBridge.exposed)).toEqual(['bijotel'])
    expect(Object.keys(bridge).sort()).toEqual(['api', 'onEvent', 'pathForFile'])
    expect(Object.keys(bridge.api).sort()).toEqual([...API_CALLS].sort())
    expect(bridge.pathForFile({ path: '/dropped/chain.db' } as unknown as File)).toBe('/dropped/chain.db')
  })

  it('calls reach the handler table over IPC; events of the chain arrive on the one channel', async () => {
    const seen: AppEvent[] = []
    const stop = bridge.onEvent((e) => seen.push(e))
    const ov = await bridge.api.openChain({ path: dbPath('clean') })
    expect(ov.entries).toBe(240)
    expect(seen).toEqual([
      {
        name: 'chainChanged',
        payload: { chain: { open_id: 1, path: dbPath('clean'), sha256: ov.evidence.db.sha256 } },
      },
    ])
    expect((await bridge.api.appInfo()).transport).toBe('ipc')
    stop()
    await bridge.api.closeChain()
    expect(seen).toHaveLength(1)
  })

  it('a failed call throws the engine’s one line with its code', async () => {
    const err = (await bridge.api
      .openChain({ path: dbPath('bad-not-sqlite') })
      .catch((e: unknown) => e)) as Error & {
      code?: string
    }
    expect(err).toBeInstanceOf(Error)
    expect(err.code).toBe('not_a_chain')
    expect(err.message).not.toContain('\n')
  })

  it('drops messages on the channel that are not events of the contract', () => {
    const seen: AppEvent[] = []
    const stop = bridge.onEvent((e) => seen.push(e))
    const wc = BrowserWindow.all[0]!.webContents
    wc.send(APP_EVENT_CHANNEL, { name: 'reload', payload: null })
    wc.send(APP_EVENT_CHANNEL, 'menuOpen')
    wc.send(APP_EVENT_CHANNEL, null)
    wc.send(APP_EVENT_CHANNEL, { name: 'menuVerify' })
    stop()
    expect(seen).toEqual([{ name: 'menuVerify', payload: null }])
  })
})
