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
})
