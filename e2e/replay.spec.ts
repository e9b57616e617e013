// The drag-and-drop replay checker against the fixtures' expected ReplayResults.
import { expect, test } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { dropFile, expected, fixture, gotoSeq, openFixture, row } from './helpers'

const clean = expected('clean')
const want = (seq: number) => clean.replay.find((r) => r.seq === seq)!

test('dropping clean.replay-8.txt on row 8 gives MISMATCH with the CLI’s reason', async ({ page }) => {
  const w = want(8)
  await openFixture(page, 'clean.db')
  await dropFile(row(page, 8), fixture(w.file))
  const result = page.getByTestId('replay-result')
  await expect(result).toBeVisible()
  await expect(result).toHaveAttribute('data-seq', '8')
  await expect(page.getByTestId('replay-verdict')).toHaveText('MISMATCH')
  await expect(page.getByTestId('replay-original')).toHaveText(w.expected.original_hash!)
  await expect(page.getByTestId('replay-hash')).toHaveText(w.expected.replay_hash)
  await expect(page.getByTestId('replay-reason')).toHaveText(w.expected.reason!)
  await expect(result).toContainText(w.expected.model_version!)
  await expect(result).toContainText('True')
  await expect(page.getByTestId('detail-seq')).toHaveText('8')
  // The CLI rendering, line for line.
  await result.locator('summary').click()
  await expect(page.getByTestId('replay-cli')).toContainText('=== Replay MISMATCH (seq=8) ===')
  await expect(row(page, 8)).toContainText('✗ replay')
})

test('dropping a replay file on the detail panel checks the selected entry', async ({ page }) => {
  const w = want(1)
  await openFixture(page, 'clean.db')
  await row(page, 1).click()
  await expect(page.getByTestId('detail-seq')).toHaveText('1')
  await dropFile(page.getByTestId('detail-pane'), fixture(w.file))
  await expect(page.getByTestId('replay-verdict')).toHaveText('MATCH')
  await expect(page.getByTestId('replay-hash')).toHaveText(w.expected.replay_hash)
})

test('dropping on the window checks the chosen seq; every fixture replay gives its expected verdict', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  for (const w of clean.replay) {
    await gotoSeq(page, w.seq)
    await dropFile(page.locator('.topbar'), fixture(w.file))
    const result = page.locator(`[data-testid="replay-result"][data-seq="${w.seq}"]`)
    await expect(result).toHaveAttribute('data-match', String(w.expected.match))
    await expect(result.getByTestId('replay-hash')).toHaveText(w.expected.replay_hash)
    await expect(result.getByTestId('replay-original')).toHaveText(
      w.expected.original_hash ?? '(none — entry has no replay metadata)',
    )
    if (w.expected.reason) await expect(result.getByTestId('replay-reason')).toHaveText(w.expected.reason)
    else await expect(result.getByTestId('replay-reason')).toHaveCount(0)
  }
  await page.getByTestId('tab-replays').click()
  await expect(page.getByTestId('replay-list-row')).toHaveCount(clean.replay.length)
})

test('the textarea alternative checks pasted output', async ({ page }) => {
  const w = want(15)
  await openFixture(page, 'clean.db')
  await gotoSeq(page, 15)
  await page.getByTestId('replay-checker').locator('summary').click()
  await page.getByTestId('replay-text').fill(readFileSync(fixture(w.file), 'utf8'))
  await page.getByTestId('replay-text-submit').click()
  await expect(page.getByTestId('replay-verdict')).toHaveText(w.expected.match ? 'MATCH' : 'MISMATCH')
  await expect(page.getByTestId('replay-hash')).toHaveText(w.expected.replay_hash)
})
