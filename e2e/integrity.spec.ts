// The integrity panel: window size, thresholds, whole-chain mode, and the charts following it.
import { expect, test } from '@playwright/test'
import { openFixture } from './helpers'

async function analyse(page: import('@playwright/test').Page, window: number): Promise<void> {
  const entries = Number(
    ((await page.getByTestId('overview-entries').textContent()) ?? '0').replace(/,/g, ''),
  )
  await page.getByTestId('integrity-window').fill(String(window))
  await page.getByTestId('integrity-run').click()
  await expect(page.getByTestId('integrity-headline')).toContainText(
    `last ${Math.min(window, entries)} entries`,
  )
}

test('provider-shift.db: window 100 shows the shift, window 500 does not', async ({ page }) => {
  await openFixture(page, 'provider-shift.db')
  await analyse(page, 100)
  await expect(page.getByTestId('integrity-headline')).toContainText(
    '1 ANOMALIES (last 100 entries, seq 141..240)',
  )
  await expect(page.getByTestId('cat-provider')).toHaveAttribute('data-ok', 'false')
  await expect(page.getByTestId('provider-shift-lines')).toContainText('anthropic: 94.0% -> 50.0% (-44.0pp)')
  await expect(page.getByTestId('provider-shift-lines')).toContainText('xai: 6.0% -> 50.0% (+44.0pp)')
  await expect(page.getByTestId('share-shift')).toContainText('anthropic 94.0% → 50.0% (-44.0pp)')
  for (const c of ['cat-sequence', 'cat-timestamps', 'cat-hashes', 'cat-rate', 'cat-rotation'])
    await expect(page.getByTestId(c)).toHaveAttribute('data-ok', 'true')
  await expect(page.getByTestId('rotation-note')).not.toBeEmpty()

  await analyse(page, 500)
  await expect(page.getByTestId('integrity-headline')).toHaveText(
    'Chain integrity: CLEAN (last 240 entries, seq 1..240)',
  )
  await expect(page.getByTestId('cat-provider')).toHaveAttribute('data-ok', 'true')
  await expect(page.getByTestId('share-shift')).toHaveCount(0)
  await expect(page.getByTestId('share-stable')).toBeVisible()
})

test('a higher provider-shift threshold hides the shift', async ({ page }) => {
  await openFixture(page, 'provider-shift.db')
  await page.getByTestId('integrity-panel').locator('summary', { hasText: 'thresholds' }).click()
  await page.getByTestId('threshold-provider_shift_pct').fill('50')
  await analyse(page, 100)
  await expect(page.getByTestId('cat-provider')).toHaveAttribute('data-ok', 'true')
  await expect(page.getByTestId('integrity-report')).toContainText('shift > 50pp')
})

test('rate-drop.db shows the rate anomaly on the rate chart', async ({ page }) => {
  await openFixture(page, 'rate-drop.db')
  await analyse(page, 100)
  await expect(page.getByTestId('cat-rate')).toHaveAttribute('data-ok', 'false')
  await expect(page.getByTestId('rate-anomaly')).toContainText('Rate anomaly: 20.41/h → 8.54/h (-58.1%)')
  // The window's halves are drawn over both charts, with the two rates as lines on the rate chart.
  const rate = page.getByTestId('rate-chart')
  await expect(rate.locator('.half.baseline')).toHaveCount(1)
  await expect(rate.locator('.half.current')).toHaveCount(1)
  await expect(rate.locator('.rate-line.anomalous')).toHaveCount(2)
  const share = page.getByTestId('share-chart')
  await expect(share.locator('.half-outline.baseline')).toHaveCount(1)
  await expect(share.locator('.half-outline.current')).toHaveCount(1)
})

test('duplicate-body.db: the anomaly is marked on the timeline and selectable', async ({ page }) => {
  await openFixture(page, 'duplicate-body.db')
  await analyse(page, 500)
  await expect(page.getByTestId('cat-hashes')).toHaveAttribute('data-ok', 'false')
  const mark = page.getByTestId('timeline-mark').first()
  await expect(mark).toBeVisible()
  const seq = await mark.getAttribute('data-seq')
  await mark.dispatchEvent('click')
  await expect(page.getByTestId('detail-seq')).toHaveText(seq!)
})

test('whole-chain mode runs as a job and reports the whole chain', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.getByTestId('integrity-all').check()
  await page.getByTestId('integrity-run').click()
  await expect(page.getByTestId('integrity-report')).toContainText('whole chain')
  await expect(page.getByTestId('integrity-headline')).toContainText('CLEAN')
})
