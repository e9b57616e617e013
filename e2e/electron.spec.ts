// The desktop app itself, when an Electron binary is installed (it is not on every machine).
import { _electron as electron, expect, test } from '@playwright/test'
import { existsSync } from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(__dirname, '..')
const DIST = path.join(ROOT, 'node_modules', 'electron', 'dist')
const FIXTURES = process.env.BIJOTEL_E2E_FIXTURES ?? path.resolve(ROOT, '../shared/fixtures')

const SKIP = 'Electron binary not installed here: skipped'
if (!existsSync(DIST)) console.log(SKIP)

test.describe('electron', () => {
  test.skip(!existsSync(DIST), SKIP)

  test('opens a chain given on the command line and shows its overview', async () => {
    // The electron package's main export is the path of its binary.
    const mod = (await import('electron')) as unknown as { default?: unknown }
    const executablePath = typeof mod.default === 'string' ? mod.default : undefined
    const app = await electron.launch({
      ...(executablePath ? { executablePath } : {}),
      args: [path.join(ROOT, 'out', 'main', 'index.js'), '--no-sandbox', path.join(FIXTURES, 'clean.db')],
      cwd: ROOT,
    })
    try {
      const win = await app.firstWindow()
      await expect(win.getByTestId('workspace')).toBeVisible({ timeout: 30_000 })
      await expect(win.getByTestId('overview-entries')).toHaveText('240')
      await expect(win.getByTestId('open-dialog')).toBeVisible()
    } finally {
      await app.close()
    }
  })

  test('File → Close chain empties the window; Open Recent opens the chain again (menu → events)', async () => {
    const mod = (await import('electron')) as unknown as { default?: unknown }
    const executablePath = typeof mod.default === 'string' ? mod.default : undefined
    const clean = path.join(FIXTURES, 'clean.db')
    const app = await electron.launch({
      ...(executablePath ? { executablePath } : {}),
      args: [path.join(ROOT, 'out', 'main', 'index.js'), '--no-sandbox', clean],
      cwd: ROOT,
    })
    // Click a menu item as the user would: File → <label>, or File → Open Recent → <label>.
    const click = (labels: string[]) =>
      app.evaluate(({ Menu }, labels) => {
        let items = Menu.getApplicationMenu()?.items ?? []
        let item
        for (const l of ['&File', ...labels]) {
          item = items.find((i) => i.label === l)
          items = item?.submenu?.items ?? []
        }
        if (!item) throw new Error(`no menu item ${labels.join(' → ')}`)
        item.click()
      }, labels)
    try {
      const win = await app.firstWindow()
      await expect(win.getByTestId('overview-entries')).toHaveText('240', { timeout: 30_000 })
      await click(['Close chain'])
      await expect(win.getByTestId('welcome')).toBeVisible()
      await click(['Open Recent', clean])
      await expect(win.getByTestId('evidence-db-path')).toHaveText(clean)
      await expect(win.getByTestId('overview-entries')).toHaveText('240')
    } finally {
      await app.close()
    }
  })
})
