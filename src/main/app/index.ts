// Electron main process entry: the shell around the engine. It owns the window, menu and dialogs,
// and registers the contract's one handler table on IPC.
import { app, BrowserWindow } from 'electron'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { AuditSession } from '../handlers/session'
import { createHandlers } from '../handlers/table'
import { pickKeyPath, pickOpenPath, pickSavePath } from './dialogs'
import { printHtmlToPdf } from './pdf'
import { registerIpc } from './ipc'
import { installMenu } from './menu'
import { loadRecent, saveRecent } from './recent'
import { createMainWindow, hardenDefaultSession, registerAppScheme } from './window'

registerAppScheme()

if (!app.requestSingleInstanceLock()) app.quit()

const rendererDir = join(__dirname, '../renderer')
const preloadDir = join(__dirname, '../preload')
const samplePath = app.isPackaged
  ? join(process.resourcesPath, 'sample-chain.db')
  : join(__dirname, '../../resources/sample-chain.db')

function pathFromArgv(argv: string[]): string | null {
  const args = argv.slice(app.isPackaged ? 1 : 2).filter((a) => !a.startsWith('-'))
  const p = args[args.length - 1]
  return p && existsSync(p) ? p : null
}

let win: BrowserWindow | null = null

app.whenReady().then(() => {
  const recentFile = join(app.getPath('userData'), 'recent.json')
  const session = new AuditSession({
    samplePath: existsSync(samplePath) ? samplePath : null,
    initialPath: pathFromArgv(process.argv),
    recent: loadRecent(recentFile),
    onRecent: (paths) => {
      saveRecent(recentFile, paths)
      for (const p of paths.slice(0, 1)) app.addRecentDocument(p)
      menu()
    },
  })
  const table = createHandlers(session, {
    pickOpenPath: () => pickOpenPath(win),
    pickSavePath: (name) => pickSavePath(win, name),
    pickKeyPath: () => pickKeyPath(win),
    printToPdf: (html) => printHtmlToPdf(html),
  })
  const menu = (): void =>
    installMenu(
      () => win,
      () => session.recent,
      (p) =>
        void table
          .openChain({ path: p }, { transport: 'ipc', trusted: true })
          .then(() => win?.webContents.send('bijotel:menu', 'reload')),
    )
  hardenDefaultSession(rendererDir)
  registerIpc(table)
  menu()
  win = createMainWindow(preloadDir)
  app.on('second-instance', (_e, argv) => {
    const p = pathFromArgv(argv)
    if (p)
      void table
        .openChain({ path: p }, { transport: 'ipc', trusted: true })
        .then(() => win?.webContents.send('bijotel:menu', 'reload'))
    if (win?.isMinimized()) win.restore()
    win?.focus()
  })
  app.on('before-quit', () => session.dispose())
  app.on('window-all-closed', () => app.quit())
})
