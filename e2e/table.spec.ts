// The virtualized entries table: windowing, sorting, keyboard, locate, filters, timeline zoom.
import { expect, test } from '@playwright/test'
import { gotoSeq, openFixture, row, rowsText } from './helpers'

test('renders only the visible rows and reaches the end with the keyboard', async ({ page }) => {
  await openFixture(page, 'clean.db')
  const list = page.getByTestId('entries-list')
  await expect(row(page, 1)).toBeVisible()
  const rendered = await page.getByTestId('entry-row').count()
  expect(rendered).toBeGreaterThan(5)
  expect(rendered).toBeLessThan(60)
  await list.focus()
  await page.keyboard.press('End')
  await expect(row(page, 240)).toBeVisible()
  await expect(row(page, 1)).toHaveCount(0)
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('detail-seq')).toHaveText('240')
  await page.keyboard.press('Home')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('detail-seq')).toHaveText('3')
  await page.keyboard.press('PageDown')
  await page.keyboard.press('Enter')
  const seq = Number(await page.getByTestId('detail-seq').textContent())
  expect(seq).toBeGreaterThan(5)
  // [ and ] step through the chain.
  await page.keyboard.press(']')
  await expect(page.getByTestId('detail-seq')).toHaveText(String(seq + 1))
  await page.keyboard.press('[')
  await expect(page.getByTestId('detail-seq')).toHaveText(String(seq))
})

test('sorts by seq and by time', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.getByTestId('sort-seq').click()
  await expect(page.getByTestId('entry-row').first()).toHaveAttribute('data-seq', '240')
  await page.getByTestId('sort-time').click()
  await expect(page.getByTestId('entry-row').first()).toHaveAttribute('data-seq', '1')
  await page.getByTestId('sort-time').click()
  await expect(page.getByTestId('entry-row').first()).toHaveAttribute('data-seq', '240')
})

test('go to seq locates and opens a row; prev/next links follow the chain', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await gotoSeq(page, 200)
  await expect(row(page, 200)).toHaveAttribute('aria-selected', 'true')
  await page.getByTestId('detail-next').click()
  await expect(page.getByTestId('detail-seq')).toHaveText('201')
  await expect(row(page, 201)).toHaveAttribute('aria-selected', 'true')
  await page.getByTestId('detail-prev').click()
  await expect(page.getByTestId('detail-seq')).toHaveText('200')
})

test('the body is shown as text, never as HTML', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await gotoSeq(page, 5)
  const body = page.getByTestId('entry-body')
  await expect(body).toContainText('"attributes"')
  expect(await body.evaluate((el) => el.children.length)).toBe(0)
})

test('filtering by provider narrows the timeline, charts and table alike', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.getByTestId('filter-provider').selectOption('xai')
  await expect(page.getByTestId('timeline-total')).toHaveText('24')
  await expect(page.getByTestId('rate-total')).toHaveText('24')
  await expect(page.getByTestId('share-total')).toHaveText('24')
  await expect(page.getByTestId('entries-count')).toContainText('24 rows')
  await expect(page.getByTestId('entry-row').first()).toContainText('xai')
})

test('zooming the timeline with the brush narrows the charts and the table; Esc resets', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await expect(page.getByTestId('rate-total')).toHaveText('240')
  const brush = page.locator('.recharts-brush')
  // The charts scroll in their own band above the table (issue 35): bring the brush into view.
  await brush.scrollIntoViewIfNeeded()
  const box = (await brush.boundingBox())!
  const traveller = page.locator('.recharts-brush-traveller').first()
  const t = (await traveller.boundingBox())!
  await page.mouse.move(t.x + t.width / 2, t.y + t.height / 2)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width / 2, t.y + t.height / 2, { steps: 8 })
  await page.mouse.up()
  await expect(page.getByTestId('range-label')).toBeVisible()
  // Let the brush's debounced range settle.
  await page.waitForTimeout(600)
  const n = Number(await page.getByTestId('rate-total').textContent())
  expect(n).toBeGreaterThan(0)
  expect(n).toBeLessThan(240)
  await expect(page.getByTestId('share-total')).toHaveText(String(n))
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(n))
  await page.locator('body').click({ position: { x: 5, y: 5 } })
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('rate-total')).toHaveText('240')
  await expect(page.getByTestId('range-label')).toHaveCount(0)
})
