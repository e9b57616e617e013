import { Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron'

export type MenuCommand = 'open' | 'export' | 'copy-report' | 'verify' | 'integrity' | 'close'

export function installMenu(
  getWindow: () => BrowserWindow | null,
  recent: () => string[],
  openRecent: (p: string) => void,
): void {
  const send = (command: MenuCommand) => () => getWindow()?.webContents.send('bijotel:menu', command)
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        { label: 'Open chain.db…', accelerator: 'CmdOrCtrl+O', click: send('open') },
        {
          label: 'Open Recent',
          submenu: recent().length
            ? recent().map((p) => ({ label: p, click: () => openRecent(p) }))
            : [{ label: '(none)', enabled: false }],
        },
        { label: 'Close chain', accelerator: 'CmdOrCtrl+W', click: send('close') },
        { type: 'separator' },
        { label: 'Export integrity report…', accelerator: 'CmdOrCtrl+E', click: send('export') },
        { label: 'Copy report as JSON', accelerator: 'CmdOrCtrl+Shift+C', click: send('copy-report') },
        { type: 'separator' },
        process.platform === 'darwin' ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: '&Audit',
      submenu: [
        { label: 'Verify chain', accelerator: 'CmdOrCtrl+Shift+V', click: send('verify') },
        { label: 'Run integrity monitor', accelerator: 'CmdOrCtrl+I', click: send('integrity') },
      ],
    },
    { label: '&Edit', submenu: [{ role: 'copy' }, { role: 'selectAll' }] },
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
  ]
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}
