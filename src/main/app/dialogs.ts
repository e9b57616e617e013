import { dialog, type BrowserWindow } from 'electron'

export async function pickOpenPath(win: BrowserWindow | null): Promise<string | null> {
  const opts = {
    title: 'Open a BIJOTEL chain.db',
    properties: ['openFile' as const],
    filters: [
      { name: 'SQLite chain', extensions: ['db', 'sqlite', 'sqlite3'] },
      { name: 'All files', extensions: ['*'] },
    ],
  }
  const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts)
  return r.canceled ? null : (r.filePaths[0] ?? null)
}

export async function pickSavePath(win: BrowserWindow | null, defaultName: string): Promise<string | null> {
  const opts = {
    title: 'Export integrity report',
    defaultPath: defaultName,
    filters: [{ name: 'JSON', extensions: ['json'] }],
  }
  const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts)
  return r.canceled ? null : (r.filePath ?? null)
}
