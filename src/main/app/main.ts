// The Electron main process: the shell around the engine. It owns the window, menu and dialogs,
// registers the contract's one handler table on IPC, and sends the contract's events: the session's
// chainChanged (whatever opened or closed the chain), openFailed, and the menu's commands.
// `startShell` takes everything from the electron module, so the tests run it against a stand-in
// of that module (test/main/app/electron-stand-in.ts) without an Electron binary.
import { app, BrowserWindow } from 'electron'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { AuditSession } from '../session/session'
import { onPriorChanged, onReportSigned } from '../session/custody-state'
import { createHandlers, type HandlerTable } from '../handlers/table'
import { openFromShell, pathFromArgv, seqFromArgv } from './actions'
import { pickKeyPath, pickOpenPath, pickSavePath } from './dialogs'
import { appEventSender } from './events'
import { registerIpc } from './ipc'
import { installMenu } from './menu'
import { printHtmlToPdf } from './pdf'
import { loadRecent, saveRecent } from './recent'
import { createMainWindow, hardenDefaultSession, registerAppScheme } from './window'

export interface ShellOptions {
  /** Where the built main process lives (out/main): the renderer and preload are its siblings. */
  mainDir: string
  /** The bundled sample chain (resources/sample-chain.db), when there is one. */
  samplePath: string | null
  argv: string[]
  /** electron-vite's dev server (`npm run dev`): the renderer is loaded from it instead of app://. */
  devServerUrl?: string
}

export interface Shell {
  session: AuditSession
  table: HandlerTable
  window: () => BrowserWindow | null
}

/** Options from the process: the packaged app's resources, or the repository's. */
export function processShellOptions(mainDir: string): ShellOptions {
  const samplePath = app.isPackaged
    ? join(process.resourcesPath, 'sample-chain.db')
    : join(mainDir, '../../resources/sample-chain.db')
  const dev = process.env['ELECTRON_RENDERER_URL']
  return {
    mainDir,
    samplePath: existsSync(samplePath) ? samplePath : null,
    argv: process.argv,
    ...(!app.isPackaged && dev ? { devServerUrl: dev } : {}),
  }
}

/**
 * Start the shell; resolves once the window exists. Null when another instance holds the lock (this
 * one quits and hands its command line over: `second-instance` in the first).
 */
export async function startShell(opts: ShellOptions): Promise<Shell | null> {
  registerAppScheme()
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return null
  }
  await app.whenReady()

  let win: BrowserWindow | null = null
  const send = appEventSender(() => win)
  const recentFile = join(app.getPath('userData'), 'recent.json')
  const session = new AuditSession({
    samplePath: opts.samplePath,
    initialPath: pathFromArgv(opts.argv, app.isPackaged),
    initialSeq: seqFromArgv(opts.argv, app.isPackaged),
    recent: loadRecent(recentFile),
    onRecent: (paths) => {
      saveRecent(recentFile, paths)
      for (const p of paths.slice(0, 1)) app.addRecentDocument(p)
      menu()
    },
  })
  // Whatever changed the chain (a call from the page, Open Recent, a second instance, close), the
  // page is told at once, before any answer computed from the new chain.
  session.onChainChanged((chain) => send('chainChanged', { chain }))
  session.onKeysChanged((keys) => send('keysChanged', { keys }))
  onPriorChanged(session, (prior) => send('priorChanged', { prior }))
  // Every signature made with the auditor's key is shown in the page and logged (issue 34).
  onReportSigned(session, (signed) => {
    send('reportSigned', signed)
    process.stderr.write(`report signed with key ${signed.fingerprint} (${signed.generated_at})\n`)
  })
  const table = createHandlers(session, {
    pickOpenPath: () => pickOpenPath(win),
    pickSavePath: (name) => pickSavePath(win, name),
    pickKeyPath: () => pickKeyPath(win),
    printToPdf: (html) => printHtmlToPdf(html),
  })
  const menu = (): void =>
    installMenu({
      platform: process.platform,
      recent: session.recent,
      send: (command) => send(command, null),
      openRecent: (p) => void openFromShell(table, p, send),
    })

  hardenDefaultSession(join(opts.mainDir, '../renderer'), opts.devServerUrl)
  registerIpc(table, () => win?.webContents ?? null, opts.devServerUrl)
  menu()
  win = createMainWindow(join(opts.mainDir, '../preload'), opts.devServerUrl)
  app.on('second-instance', (_e, argv: string[]) => {
    // `bijotel-auditor chain.db --seq 57` while the app runs: that chain, at that row.
    const p = pathFromArgv(argv, app.isPackaged)
    if (p) void openFromShell(table, p, send, seqFromArgv(argv, app.isPackaged))
    if (win?.isMinimized()) win.restore()
    win?.focus()
  })
  app.on('before-quit', () => session.dispose())
  app.on('window-all-closed', () => app.quit())
  return { session, table, window: () => win }
}
