// A prior held by the engine is shown in a page loaded after it was set (a reload, a new tab), on
// every load, however the page's chain sync and its event stream interleave: the engine applies the
// prior to the next verify, so a page saying nothing of it shows 'prior head' findings with no
// prior in view. The load is repeated; a route holds the page's own chain read back so that the
// connect-time priorChanged arrives before the workspace exists (the event used to be dropped).
import { expect, test } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fixture, openFixture, secrets, useSecrets } from './helpers'

const ROOT = path.resolve(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'bijotel')
let dir = ''
test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bijotel-e2e-prior-reload-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a prior set before a reload is shown after it, on every reload, however slow the chain read is', async ({
  page,
}) => {
  const before = path.join(dir, 'before.json')
  execFileSync(process.execPath, [
    CLI,
    'report',
    '--db',
    fixture('clean.db'),
    '--secret-hex',
    secrets()['primary']!,
    '-o',
    before,
  ])
  await openFixture(page, 'truncated-tail.db')
  await useSecrets(page, [secrets()['primary']!])
  await page.getByTestId('prior-file-input').setInputFiles(before)
  await expect(page.getByTestId('prior-last-seq')).toHaveText('240')
  for (let i = 0; i < 3; i++) {
    await page.reload()
    await expect(page.getByTestId('prior-last-seq'), `reload ${i}`).toHaveText('240')
  }
  // The chain read back after the event stream has said what is held: the workspace is built late.
  await page.route('**/api/call/currentChain', async (route) => {
    await new Promise((r) => setTimeout(r, 800))
    await route.continue()
  })
  for (let i = 0; i < 2; i++) {
    await page.reload()
    await expect(page.getByTestId('prior-last-seq'), `slow reload ${i}`).toHaveText('240')
  }
})
