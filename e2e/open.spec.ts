// Opening chains in web mode: the served sample at startup, fixtures by path, clear errors.
import { expect, test } from '@playwright/test'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { dropFile, fixture, openFixture, openPath, SAMPLE_DB, start, rowsText } from './helpers'

test('shows the served sample at startup, with its timeline and both charts', async ({ page, request }) => {
  const r = await request.post('/api/call/openChain', {
    data: { path: SAMPLE_DB },
    headers: { 'Content-Type': 'application/json' },
  })
  expect(r.ok()).toBeTruthy()
  const ov = (await r.json()) as { entries: number }
  await start(page)
  await expect(page.getByTestId('current-file')).toHaveText(path.basename(SAMPLE_DB))
  const n = ov.entries.toLocaleString('en-US')
  await expect(page.getByTestId('overview-entries')).toHaveText(n)
  await expect(page.getByTestId('timeline-total')).toHaveText(n)
  await expect(page.getByTestId('rate-total')).toHaveText(n)
  await expect(page.getByTestId('share-total')).toHaveText(n)
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(n))
})

test('opens a shared fixture by path: evidence, counts, timeline and charts', async ({ page }) => {
  await openFixture(page, 'clean.db')
  const bytes = readFileSync(fixture('clean.db'))
  await expect(page.getByTestId('evidence-db-sha256')).toHaveText(
    createHash('sha256').update(bytes).digest('hex'),
  )
  await expect(page.getByTestId('evidence-db-size')).toContainText(bytes.length.toLocaleString('en-US'))
  await expect(page.getByTestId('overview-entries')).toHaveText('240')
  await expect(page.getByTestId('overview-seq')).toHaveText('1–240')
  await expect(page.getByTestId('overview-providers')).toContainText('anthropic')
  await expect(page.getByTestId('timeline-total')).toHaveText('240')
  await expect(page.getByTestId('rate-total')).toHaveText('240')
  await expect(page.getByTestId('share-total')).toHaveText('240')
  // The charts drew bars (recharts SVG), not an empty placeholder.
  await expect(page.getByTestId('timeline').locator('.recharts-bar-rectangle').first()).toBeVisible()
  await expect(page.getByTestId('rate-chart').locator('.recharts-bar-rectangle').first()).toBeVisible()
  await expect(page.getByTestId('share-chart').locator('.recharts-bar-rectangle').first()).toBeVisible()
  await expect(page.getByTestId('entries-count')).toContainText('240 rows')
})

test('the -wal of a chain is part of the evidence', async ({ page }) => {
  await openFixture(page, 'wal-tail.db')
  await expect(page.getByTestId('evidence-wal-path')).toHaveText(fixture('wal-tail.db-wal'))
  const wal = readFileSync(fixture('wal-tail.db-wal'))
  await expect(page.getByTestId('evidence-wal-sha256')).toHaveText(
    createHash('sha256').update(wal).digest('hex'),
  )
  await expect(page.getByTestId('overview-entries')).toHaveText('240')
})

for (const bad of [
  'bad-not-sqlite.db',
  'bad-empty.db',
  'bad-no-chain-table.db',
  'bad-missing-columns.db',
  'bad-truncated-file.db',
]) {
  test(`a non-chain file (${bad}) gives one clear line, never a crash`, async ({ page }) => {
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await openFixture(page, 'clean.db')
    await page.getByTestId('open-path').fill(fixture(bad))
    await page.getByTestId('open-path-submit').click()
    const line = page.getByTestId('open-error')
    await expect(line).toBeVisible()
    const text = (await line.textContent()) ?? ''
    expect(text.length).toBeGreaterThan(5)
    expect(text).not.toContain('\n')
    expect(text).not.toMatch(/at .*\.js:\d+/)
    // The chain that was open stays usable.
    await expect(page.getByTestId('current-file')).toHaveText('clean.db')
    await expect(page.getByTestId('boundary-error')).toHaveCount(0)
    expect(errors).toEqual([])
  })
}

test('a path outside the open roots is refused with a message', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await page.getByTestId('open-path').fill('/etc/hostname')
  await page.getByTestId('open-path-submit').click()
  await expect(page.getByTestId('open-error')).toContainText('is outside the folders this server may read')
})

test('dropping a .db on the window in web mode says that web mode opens by path', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await dropFile(page.locator('.topbar'), fixture('clean.db'))
  await expect(page.getByTestId('notice')).toContainText('Web mode opens chains by path')
  await expect(page.getByTestId('current-file')).toHaveText('clean.db')
})

test('recent paths are offered for the path box', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await openPath(page, fixture('burst.db'))
  const options = page.locator('datalist option')
  await expect(options.first()).toHaveAttribute('value', fixture('burst.db'))
  await expect(page.locator(`datalist option[value="${fixture('clean.db')}"]`)).toHaveCount(1)
})
