// The application menu. The template is built by a pure function (tests read it through a stand-in
// of the electron module); every command is an event of the contract (MenuCommand), Open Recent is
// done by the shell itself, and the Edit menu is Electron's roles, so the keyboard's undo, cut, copy,
// paste and select all work in text fields (on macOS only menu items carry these shortcuts).
import { Menu, type MenuItemConstructorOptions } from 'electron'
import type { MenuCommand } from '../../shared/app-events'
import { printable } from '../../shared/printable'

export interface MenuOptions {
  platform: NodeJS.Platform
  recent: string[]
  send: (command: MenuCommand) => void
  openRecent: (path: string) => void
}

/**
 * A recent path as its menu item's label: a folder named by whoever handed over the evidence may hold
 * a bidi override (U+202E shows `fdp.db` as `bd.pdf`, UAX #9 §2), a zero-width space or a line break,
 * so it is written as printable() writes it (the item still opens the exact path); on Windows and
 * Linux `&` marks the next letter as the item's mnemonic and `&&` is a literal `&` (Electron's
 * MenuItem `label`), so a path's `&` is doubled.
 */
export function recentLabel(path: string, mac: boolean): string {
  const shown = printable(path)
  return mac ? shown : shown.replace(/&/g, '&&')
}

export function menuTemplate({
  platform,
  recent,
  send,
  openRecent,
}: MenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin'
  const command = (c: MenuCommand) => () => send(c)
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        { label: 'Open chain.db…', accelerator: 'CmdOrCtrl+O', click: command('menuOpen') },
        {
          label: 'Open Recent',
          submenu: recent.length
            ? recent.map((p) => ({ label: recentLabel(p, mac), click: () => openRecent(p) }))
            : [{ label: '(none)', enabled: false }],
        },
        { label: 'Close chain', accelerator: 'CmdOrCtrl+W', click: command('menuClose') },
        { type: 'separator' },
        { label: 'Export integrity report…', accelerator: 'CmdOrCtrl+E', click: command('menuExport') },
        { label: 'Copy report as JSON', accelerator: 'CmdOrCtrl+Shift+E', click: command('menuCopyReport') },
        { type: 'separator' },
        // CmdOrCtrl+W is Close chain; the window keeps Electron's other shortcut for closing.
        mac ? { role: 'close', accelerator: 'CmdOrCtrl+Shift+W' } : { role: 'quit' },
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        ...(mac ? [{ role: 'pasteAndMatchStyle' as const }] : []),
        { role: 'delete' },
        { type: 'separator' },
        { role: 'selectAll' },
      ],
    },
    {
      label: '&Audit',
      submenu: [
        { label: 'Verify chain', accelerator: 'CmdOrCtrl+Shift+V', click: command('menuVerify') },
        { label: 'Run integrity monitor', accelerator: 'CmdOrCtrl+I', click: command('menuIntegrity') },
      ],
    },
    {
      label: '&View',
      submenu: [
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    ...(mac ? [{ role: 'windowMenu' as const }] : []),
  ]
}

export function installMenu(options: MenuOptions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(options)))
}
