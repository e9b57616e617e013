// The screenshots of docs/app.md, made again by the suite (issue 35): every panel of the window in
// the light theme at 1440×900, from the shared fixtures. `docs/screenshots/NAME.png` is written
// only when the shot is taken; the test also checks that each file is there and not empty.
import { statSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { expect, test, type Locator, type Page } from '@playwright/test'
import { gotoSeq, openFixture, secrets, useSecrets } from './helpers'

const OUT = path.resolve(__dirname, '..', 'docs', 'screenshots')

test.use({ colorScheme: 'light', viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' })
test.describe.configure({ timeout: 180_000 })

async function shot(target: Page | Locator, name: string): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  const file = path.join(OUT, `${name}.png`)
  await target.screenshot({ path: file, animations: 'disabled' })
  expect(statSync(file).size).toBeGreaterThan(1000)
}

test('screenshots: window, keys and verdict with its key note, evidence, integrity, table and entry', async ({
  page,
}) => {
  await openFixture(page, 'rotation.db')
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('key-note')).toBeVisible()
  await gotoSeq(page, 161)
  await shot(page, 'window')
  await shot(page.getByTestId('section-verify'), 'keys-and-verification')
  await shot(page.getByTestId('section-evidence'), 'evidence')
  await shot(page.getByTestId('section-integrity'), 'integrity-monitor')
  await shot(page.locator('.split'), 'table-and-entry')
  await page.locator('.main-views').evaluate((el) => el.scrollTo(0, 0))
  await shot(page.getByTestId('find-bar'), 'find-bar')
  await shot(page.locator('.main-views'), 'filters-search-and-timeline')
  await page.getByTestId('tab-replays').click()
  await shot(page.locator('.split > :last-child'), 'replay-checks')
  await page.getByRole('tab', { name: /^Entry/ }).click()
  await shot(page.getByTestId('statusbar'), 'status-bar')
  await page.keyboard.press('?')
  await shot(page.getByTestId('shortcuts-help').locator('.modal'), 'shortcuts-help')
})

test('screenshots: the keyless card before a key; the window at 1024×700 in the dark theme', async ({
  page,
}) => {
  await openFixture(page, 'body-edit.db')
  await expect(page.getByTestId('keyless-card')).toHaveAttribute('data-state', 'broken')
  await shot(page.getByTestId('keyless-card'), 'keyless-card')
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize({ width: 1024, height: 700 })
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await gotoSeq(page, 57)
  await shot(page, 'window-1024-dark')
})

test('screenshots: recovered rows, drift and custody panels, a deep-link confirmation', async ({ page }) => {
  await openFixture(page, 'rec-live-rewrite.db')
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toBeVisible()
  await page.getByRole('tab', { name: /Recovered/ }).click()
  await shot(page.locator('.split > :last-child'), 'recovered')
  await shot(page.getByTestId('section-drift'), 'payload-drift')
  await shot(page.getByTestId('section-custody'), 'chain-of-custody')
  await page.evaluate(() => {
    window.location.hash = 'chain=%2Fcases%2Fother.db&seq=5'
  })
  await expect(page.getByTestId('confirm-link')).toBeVisible()
  await shot(page.getByTestId('confirm-link').locator('.modal'), 'deep-link-confirmation')
  await page.getByTestId('confirm-link-no').click()
})
