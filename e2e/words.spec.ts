// Issue 35, the screen's words and the smaller points (brief "words"): focus rings on every control
// a Tab reaches, in both themes; the charts band without clipping at 1024×700 and 1440×900; a verify
// asked for without a key answered where the auditor looks; Copy as JSON confirmed; one word per
// recovered row; drift saying why a dimension has no value.
import { expect, test, type Page } from '@playwright/test'
import {
  fixture,
  openFixture,
  openFixtureWithoutKeys,
  openPath,
  secrets,
  start,
  useSecrets,
  WINDOW_SIZES,
} from './helpers'

/** What has focus, and whether a ring shows it: an outline or a box shadow on it (or on the label of a hidden file input). */
async function focusRing(page: Page): Promise<{ what: string; ring: boolean; tag: string } | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (!el || el === document.body) return null
    const shown = (e: Element): boolean => {
      const s = getComputedStyle(e)
      const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
      const shadow = s.boxShadow !== 'none' && s.boxShadow !== ''
      return outline || shadow
    }
    // A file input is hidden (sr-only) inside its label: the label is what shows the ring.
    const target =
      el instanceof HTMLInputElement && el.type === 'file' && el.closest('label') ? el.closest('label')! : el
    const what = `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}${
      el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''
    } "${(el.textContent ?? el.getAttribute('aria-label') ?? '').trim().slice(0, 30)}"`
    return { what, ring: shown(target), tag: el.tagName }
  })
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`focus rings, ${scheme}`, () => {
    test.use({ colorScheme: scheme, viewport: { width: 1440, height: 900 } })
    test.describe.configure({ timeout: 180_000 })

    test('every control a Tab reaches shows a ring (outline or box shadow)', async ({ page }) => {
      await openFixture(page, 'rotation.db')
      await useSecrets(page, [secrets()['primary']!, secrets()['rotated']!])
      await expect(page.getByTestId('verdict-word')).toBeVisible()
      await page.locator('body').click({ position: { x: 1, y: 1 } })
      const missing: string[] = []
      const seen = new Set<string>()
      let rings = 0
      for (let i = 0; i < 140; i++) {
        await page.keyboard.press('Tab')
        const f = await focusRing(page)
        if (f === null) continue
        if (f.ring) rings++
        else if (!seen.has(f.what)) missing.push(f.what)
        seen.add(f.what)
      }
      // Not an empty walk: the Tab order reaches many controls, each with its ring.
      expect(seen.size).toBeGreaterThan(40)
      expect(rings).toBeGreaterThan(40)
      expect(missing).toEqual([])
    })

    test('the buttons standing in for hidden file inputs show a ring', async ({ page }) => {
      await openFixture(page, 'clean.db')
      const inputs = page.locator('label.btn input[type="file"]')
      const n = await inputs.count()
      expect(n).toBeGreaterThan(0)
      for (let i = 0; i < n; i++) {
        await inputs.nth(i).focus()
        const f = await focusRing(page)
        expect(f?.ring, f?.what).toBe(true)
      }
    })
  })
}

for (const size of WINDOW_SIZES) {
  test.describe(`charts band ${size.width}×${size.height}`, () => {
    test.use({ viewport: size })

    test('the charts fit their band (the timeline brush not clipped); table and entry panel in view', async ({
      page,
    }) => {
      await openFixture(page, 'clean.db')
      await page.getByTestId('goto-seq').fill('5')
      await page.getByTestId('goto-seq').press('Enter')
      await expect(page.getByTestId('detail-seq')).toHaveText('5')
      // The band holds the filters, the timeline and (scrolled to) the other charts: at its top, the
      // timeline with its brush is whole, not cut by the band's edge.
      const band = page.locator('.main-views')
      await band.evaluate((el) => el.scrollTo(0, 0))
      const b = (await band.boundingBox())!
      const brush = page.locator('.main-views .recharts-brush').first()
      await expect(brush).toBeVisible()
      const card = page.getByTestId('timeline')
      for (const r of [(await brush.boundingBox())!, (await card.boundingBox())!]) {
        expect(r.y).toBeGreaterThanOrEqual(b.y - 0.5)
        expect(
          r.y + r.height,
          `bottom ${r.y + r.height} past the band's ${b.y + b.height}`,
        ).toBeLessThanOrEqual(b.y + b.height + 0.5)
      }
      await expect(page.getByTestId('entries-list')).toBeInViewport()
      await expect(page.getByTestId('detail-seq')).toBeInViewport()
      await expect(page.locator('[data-testid="entry-row"][data-seq="5"]')).toBeInViewport()
    })
  })
}

test('the shortcuts help lists the table keys: the cell, the row menu and copy', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.keyboard.press('?')
  const help = page.getByTestId('shortcuts-help')
  await expect(help).toContainText('Shift + F10')
  await expect(help).toContainText('Ctrl/⌘ + C')
  await expect(help).toContainText('← →')
})

test('verify without a key: the key field takes focus, a notice says why, the refusal sits under the button', async ({
  page,
}) => {
  await openFixtureWithoutKeys(page, 'clean.db')
  // The header's Verify, far from the key field.
  await page.locator('.topbar').getByRole('button', { name: 'Verify', exact: true }).click()
  await expect(page.getByTestId('secret-input-0')).toBeFocused()
  await expect(page.getByTestId('secret-input-0')).toBeInViewport()
  await expect(page.getByTestId('notice')).toContainText('Enter the chain secret')
  await expect(page.getByTestId('verify-error')).toContainText('enter the chain secret first')
  // The panel's own button: the refusal right under it.
  await page.getByTestId('verify-button').click()
  const button = (await page.getByTestId('verify-button').boundingBox())!
  const error = (await page.getByTestId('verify-error').boundingBox())!
  expect(error.y - (button.y + button.height)).toBeLessThan(40)
  await expect(page.getByTestId('secret-input-0')).toBeFocused()
  // Use key verifies at once.
  await page.getByTestId('secret-input-0').fill(secrets()['primary']!)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  await expect(page.getByTestId('verify-error')).toHaveCount(0)
})

test('Copy as JSON says it copied', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openFixture(page, 'clean.db')
  await page.getByTestId('copy-report').click()
  await expect(page.getByTestId('notice')).toHaveText(/Report copied to the clipboard as JSON/)
  const text = await page.evaluate(() => navigator.clipboard.readText())
  expect(JSON.parse(text)).toHaveProperty('evidence')
})

test('rows a truncated finding covers read "truncated" in the Recovered tab too', async ({ page }) => {
  await start(page)
  await openPath(page, fixture('rec-live-truncate.db'))
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await expect(page.getByTestId('finding-row').filter({ hasText: 'truncated' })).toHaveCount(1)
  await page.getByTestId('tab-recovered').click()
  const words = await page
    .getByTestId('recovered-table')
    .getByTestId('recovered-status')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-word')))
  expect(words.length).toBeGreaterThan(0)
  expect(new Set(words)).toEqual(new Set(['truncated']))
  await expect(page.getByTestId('recovered-table')).not.toContainText('superseded page')
})

test('drift says why cost has no value for the models the price table lacks', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.getByTestId('drift-run').click()
  await expect(page.getByTestId('drift-result')).toBeVisible({ timeout: 30_000 })
  const empty = page.locator('[data-testid="drift-chart"][data-dimension="cost"][data-points="0"]')
  expect(await empty.count()).toBeGreaterThan(0)
  for (const c of await empty.all()) {
    await expect(c.getByTestId('drift-no-values')).toContainText('no price for')
    await expect(c.getByTestId('drift-no-values')).toContainText('bijotel.cost_usd')
  }
  await expect(page.getByTestId('drift-result')).not.toContainText(/\b1 (rows|values)\b/)
})
