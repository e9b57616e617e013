// Deep links on the desktop command line: `bijotel-auditor chain.db --seq 57` opens that chain at
// that row, at start (appInfo's initial_seq) and from a second instance (currentChain's focus_seq
// for that open only), run against the electron stand-in on the shared fixtures.
import { mkdtempSync, rmSync, type PathLike } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IPC_CHANNEL } from '../../../src/shared/contract'
import { pathFromArgv, seqFromArgv } from '../../../src/main/app/actions'
import { startShell, type Shell } from '../../../src/main/app/main'
import { dbPath, fingerprintFolder, REPO_ROOT } from '../testing/fixtures'
import * as electron from './electron-stand-in'
import { app, resetElectron } from './electron-stand-in'

describe('the command line', () => {
  const exists = (p: PathLike): boolean => String(p).endsWith('.db')

  it('takes --seq N or --seq=N, and never its value for the path', () => {
    expect(pathFromArgv(['electron', '.', 'chain.db', '--seq', '57'], false, exists)).toBe('chain.db')
    expect(seqFromArgv(['electron', '.', 'chain.db', '--seq', '57'], false)).toBe(57)
    expect(seqFromArgv(['Auditor', '--seq=9', 'chain.db'], true)).toBe(9)
    expect(pathFromArgv(['Auditor', '--seq=9', 'chain.db'], true, exists)).toBe('chain.db')
    // A file named like a number after --seq is the seq, not the chain.
    expect(pathFromArgv(['Auditor', 'a.db', '--seq', '7.db'], true, exists)).toBe('a.db')
  })

  it('ignores a --seq that is not a seq number', () => {
    for (const v of ['-1', 'x', '1.5', '', '1e3', '9999999999999999'])
      expect(seqFromArgv(['Auditor', 'chain.db', '--seq', v], true), v).toBeNull()
    expect(seqFromArgv(['Auditor', 'chain.db', '--seq'], true)).toBeNull()
    expect(seqFromArgv(['Auditor', 'chain.db'], true)).toBeNull()
  })
})

describe('the shell', () => {
  const before = fingerprintFolder()
  let userData: string
  const shells: Shell[] = []

  beforeEach(() => {
    resetElectron()
    userData = mkdtempSync(join(tmpdir(), 'bijotel-deeplink-'))
    app.userData = userData
  })

  afterEach(() => {
    for (const s of shells.splice(0)) s.session.dispose()
    rmSync(userData, { recursive: true, force: true })
    expect(fingerprintFolder()).toEqual(before)
  })

  async function start(argv: string[]): Promise<Shell> {
    const shell = await startShell({ mainDir: join(REPO_ROOT, 'out', 'main'), samplePath: null, argv })
    if (!shell) throw new Error('the shell did not start')
    shells.push(shell)
    return shell
  }

  async function invoke(name: string, req?: unknown): Promise<unknown> {
    const r = (await electron.ipcRenderer.invoke(IPC_CHANNEL, name, req)) as { ok: boolean; value?: unknown }
    if (!r.ok) throw new Error(`${name} failed`)
    return r.value
  }

  async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if (await cond()) return
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error(`timed out waiting for ${what}`)
  }

  it('at start: the path is the initial path and --seq its row', async () => {
    await start(['electron', '.', dbPath('clean'), '--seq', '57'])
    expect(await invoke('appInfo')).toMatchObject({ initial_path: dbPath('clean'), initial_seq: 57 })
    // The page opens it with that row: currentChain hands the row on for this open.
    await invoke('openChain', { path: dbPath('clean'), focus_seq: 57 })
    expect(await invoke('currentChain')).toMatchObject({ chain: { path: dbPath('clean') }, focus_seq: 57 })
  })

  it('a second instance opens its chain at its row; a later open without one has none', async () => {
    await start(['electron', '.'])
    expect(await invoke('appInfo')).toMatchObject({ initial_path: null, initial_seq: null })
    app.emit('second-instance', {}, ['electron', '.', dbPath('rotation'), '--seq', '120'], userData)
    await until(async () => {
      const s = (await invoke('currentChain')) as { focus_seq?: number } | null
      return s?.focus_seq === 120
    }, 'the second instance open')
    await invoke('openChain', { path: dbPath('clean') })
    const s = (await invoke('currentChain')) as Record<string, unknown>
    expect(s['focus_seq']).toBeUndefined()
  })
})
