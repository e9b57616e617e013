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

const SAVE_FILTERS: Record<string, { name: string; extensions: string[] }> = {
  json: { name: 'JSON', extensions: ['json'] },
  html: { name: 'HTML page', extensions: ['html'] },
  pdf: { name: 'PDF', extensions: ['pdf'] },
}

export async function pickSavePath(win: BrowserWindow | null, defaultName: string): Promise<string | null> {
  const ext = /\.(\w+)$/.exec(defaultName)?.[1] ?? 'json'
  const opts = {
    title: 'Export integrity report',
    defaultPath: defaultName,
    filters: [SAVE_FILTERS[ext] ?? SAVE_FILTERS['json']!],
  }
  const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts)
  return r.canceled ? null : (r.filePath ?? null)
}

/** The Ed25519 private key (PEM) reports are signed with; read in the main process only. */
export async function pickKeyPath(win: BrowserWindow | null): Promise<string | null> {
  const opts = {
    title: 'Choose the report-signing key (Ed25519 private key, PEM)',
    properties: ['openFile' as const],
    filters: [
      { name: 'PEM key', extensions: ['pem'] },
      { name: 'All files', extensions: ['*'] },
    ],
  }
  const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts)
  return r.canceled ? null : (r.filePaths[0] ?? null)
}
