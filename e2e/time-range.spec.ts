// The typed time range beside the brush: presets counted back from the chain's last timestamp,
// typed bounds (UTC, then local time), the brush and the inputs moving each other, and the zone
// chosen once for every time on screen (kept across reloads). SQLite on a copy counts the rows.
import { expect, test, type Page } from '@playwright/test'
import { chainRows, countInRange } from './chain-oracle'
import { fixture, openFixture, row, rowsText } from './helpers'

const rows = chainRows(fixture('clean.db'))
const first = rows[0]!.timestamp_ns
const last = rows[rows.length - 1]!.timestamp_ns
const HOUR = 3_600_000_000_000n

const utcText = (ns: bigint): string =>
  new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 23).replace('T', ' ')

async function expectRows(page: Page, n: number): Promise<void> {
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(n))
  await expect(page.getByTestId('rate-total')).toHaveText(String(n))
}

test.describe('typed time range (UTC)', () => {
  test.use({ timezoneId: 'UTC' })

  test('presets count back from the chain’s last entry and move the brush', async ({ page }) => {
    await openFixture(page, 'clean.db')
    await page.getByTestId('time-zone').selectOption('utc')
    const traveller = page.locator('.recharts-brush-traveller').first()
    const x0 = (await traveller.boundingBox())!.x
    await page.getByTestId('preset-last_hour').click()
    await expect(page.getByTestId('preset-last_hour')).toHaveAttribute('aria-pressed', 'true')
    await expectRows(page, countInRange(rows, last - HOUR, last))
    await expect(page.getByTestId('range-from')).toHaveValue(utcText(last - HOUR))
    await expect(page.getByTestId('range-to')).toHaveValue(utcText(last))
    await expect(page.getByTestId('range-label')).toBeVisible()
    // The brush follows the typed range: its left handle moved right.
    await expect.poll(async () => (await traveller.boundingBox())!.x).toBeGreaterThan(x0 + 50)
    // The chain spans less than a day: last day and last 7 days are the whole chain's rows.
    await page.getByTestId('preset-last_day').click()
    await expectRows(page, countInRange(rows, last - 24n * HOUR, last))
    await page.getByTestId('preset-whole_chain').click()
    await expectRows(page, rows.length)
    await expect(page.getByTestId('range-from')).toHaveValue('')
  })

  test('typed bounds filter table and charts; an end bound covers the minute it names', async ({ page }) => {
    await openFixture(page, 'clean.db')
    await page.getByTestId('time-zone').selectOption('utc')
    await page.getByTestId('range-from').fill('2025-11-24 18:00')
    await page.getByTestId('range-to').fill('2025-11-24 20:30')
    await page.getByTestId('range-apply').click()
    const from = BigInt(Date.parse('2025-11-24T18:00:00Z')) * 1_000_000n
    const to = BigInt(Date.parse('2025-11-24T20:31:00Z')) * 1_000_000n - 1n
    const n = countInRange(rows, from, to)
    expect(n).toBeGreaterThan(0)
    expect(n).toBeLessThan(rows.length)
    await expectRows(page, n)
    await expect(page.getByTestId('range-from')).toHaveValue('2025-11-24 18:00:00.000')
    // Only one side typed: the other is the chain's end.
    await page.getByTestId('range-to').fill('')
    await page.getByTestId('range-apply').click()
    await expectRows(page, countInRange(rows, from, last))
    // A bad bound is named, and the range stays as it was.
    await page.getByTestId('range-from').fill('next tuesday')
    await page.getByTestId('range-from').press('Enter')
    await expect(page.getByTestId('range-error')).toContainText('"next tuesday" is not a time')
    await expectRows(page, countInRange(rows, from, last))
    // Reset zoom (and Esc) clear the inputs.
    await page.getByTestId('range-reset').click()
    await expectRows(page, rows.length)
    await expect(page.getByTestId('range-from')).toHaveValue('')
  })

  test('dragging the brush fills the typed bounds', async ({ page }) => {
    await openFixture(page, 'clean.db')
    const brush = page.locator('.recharts-brush')
    // The charts scroll in their own band above the table (issue 35): bring the brush into view.
    await brush.scrollIntoViewIfNeeded()
    const box = (await brush.boundingBox())!
    const t = (await page.locator('.recharts-brush-traveller').first().boundingBox())!
    await page.mouse.move(t.x + t.width / 2, t.y + t.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width / 2, t.y + t.height / 2, { steps: 8 })
    await page.mouse.up()
    await expect(page.getByTestId('range-from')).not.toHaveValue('')
    const typed = await page.getByTestId('range-from').inputValue()
    expect(typed > utcText(first)).toBe(true)
  })
})

test.describe('local time', () => {
  // UTC+05:30 all year: local and UTC differ, with no daylight saving to guess about.
  test.use({ timezoneId: 'Asia/Kolkata' })

  test('chosen once, every time is shown in it, typed text is read in it, and it is kept', async ({
    page,
  }) => {
    await openFixture(page, 'clean.db')
    await page.getByTestId('time-zone').selectOption('utc')
    await expect(row(page, 1).locator('.c-time')).toHaveText('2025-11-24 16:03:04.869')
    await page.getByTestId('time-zone').selectOption('local')
    await expect(row(page, 1).locator('.c-time')).toHaveText('2025-11-24 21:33:04.869')
    await expect(page.locator('.thead')).toContainText('time (local)')
    // 23:30 in Kolkata is 18:00 UTC.
    await page.getByTestId('range-from').fill('2025-11-24 23:30')
    await page.getByTestId('range-to').fill('')
    await page.getByTestId('range-apply').click()
    const from = BigInt(Date.parse('2025-11-24T18:00:00Z')) * 1_000_000n
    await expectRows(page, countInRange(rows, from, last))
    // The same bound shown back in local time.
    await expect(page.getByTestId('range-from')).toHaveValue('2025-11-24 23:30:00.000')
    await page.reload()
    await expect(page.getByTestId('workspace')).toBeVisible()
    await expect(page.getByTestId('time-zone')).toHaveValue('local')
    await page.getByTestId('time-zone').selectOption('utc')
  })
})
