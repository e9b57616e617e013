// A chain of 150,000 rows (a deterministic `bijotel demo` chain): the windowed table stays small,
// the keyboard reaches both ends, and verify runs as a job with progress that can be cancelled.
import { expect, test } from '@playwright/test'
import { gotoSeq, openPath, row, start } from './helpers'

const LARGE = process.env.BIJOTEL_E2E_LARGE ?? ''
const DEMO_SECRET = '62696a6f74656c2d64656d6f2d7365637265742d6e6f742d666f722d70726f64'

test.describe('large chain', () => {
  test.skip(LARGE === '', 'no large demo chain could be made (bin/bijotel demo)')
  test.setTimeout(120_000)

  test('scrolls 150,000 rows with a small DOM and the keyboard', async ({ page }) => {
    await start(page)
    await openPath(page, LARGE)
    await expect(page.getByTestId('entries-count')).toContainText('150,000 rows')
    await expect(page.getByTestId('timeline-total')).toHaveText('150,000')
    const list = page.getByTestId('entries-list')
    await list.focus()
    await page.keyboard.press('End')
    await expect(row(page, 150_000)).toBeVisible()
    expect(await page.getByTestId('entry-row').count()).toBeLessThan(60)
    // Wheel through the middle: rows keep arriving, the DOM stays small.
    const box = (await list.boundingBox())!
    await page.mouse.move(box.x + 40, box.y + 40)
    for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -60_000)
    await expect.poll(async () => Number(await list.getAttribute('data-first-visible'))).toBeLessThan(149_000)
    await expect(page.locator('[data-testid="entry-row"]').first()).toBeVisible()
    expect(await page.locator('.trow').count()).toBeLessThan(60)
    await page.keyboard.press('Home')
    await expect(row(page, 1)).toBeVisible()
    await gotoSeq(page, 123_456)
    // Re-sorting keeps the selected row in view, now in descending order.
    await page.getByTestId('sort-seq').click()
    await expect(row(page, 123_456)).toHaveAttribute('aria-selected', 'true')
    await expect(row(page, 123_456).locator('xpath=following-sibling::div[1]')).toHaveAttribute(
      'data-seq',
      '123455',
    )
    await page.getByTestId('entries-list').focus()
    await page.keyboard.press('Home')
    await expect(page.getByTestId('entry-row').first()).toHaveAttribute('data-seq', '150000')
  })

  test('verify shows progress, can be cancelled, then completes', async ({ page }) => {
    await start(page)
    await openPath(page, LARGE)
    // Verification is fast (150k rows in well under a second): candidate keys that all fail make
    // every row try each of them, so the job runs long enough to be cancelled by a click.
    const WRONG = 24
    for (let i = 1; i < WRONG; i++) await page.getByTestId('secret-add').click()
    for (let i = 0; i < WRONG; i++)
      await page.getByTestId(`secret-input-${i}`).fill((i + 1).toString(16).padStart(2, '0').repeat(32))
    await page.getByTestId('secrets-submit').click()
    await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(WRONG)
    // Submitting keys verifies with them at once (issue 35).
    await expect(page.getByTestId('verify-progress')).toBeVisible()
    await page.getByTestId('verify-progress-cancel').click()
    await expect(page.getByTestId('verify-progress')).toHaveCount(0)
    await expect(page.getByTestId('verify-error')).toHaveText('cancelled')
    await expect(page.getByTestId('verdict')).toHaveCount(0)
    // The right key alone (adding keeps the held ones: clear them first): every row matches it.
    await page.getByTestId('key-clear-all').click()
    await expect(page.getByTestId('key-info')).toHaveCount(0)
    await page.getByTestId('secret-input-0').fill(DEMO_SECRET)
    await page.getByTestId('secrets-submit').click()
    await expect(page.getByTestId('verdict-word')).toHaveText('VALID', { timeout: 90_000 })
  })
})
