// The engine holds one key set for every tab. Tab B verifies clean.db VALID with the right key; tab
// A then adds a wrong key. Before, tab B kept its VALID and its one key while every answer it got
// next was the two keys'. Now tab B is told (keysChanged) and shows the keys held, no verdict, and
// why.
import { expect, test } from '@playwright/test'
import { openFixture, secrets, start, useSecrets } from './helpers'

test('a key typed in another tab takes down this tab’s verdict and shows the keys held', async ({
  page,
  context,
}) => {
  await openFixture(page, 'clean.db')
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  const other = await context.newPage()
  await start(other)
  await expect(other.getByTestId('current-file')).toHaveText('clean.db')
  // The other tab shows the key held, and adds a wrong one to it (a rotated key, say).
  await expect(other.getByTestId('key-info').locator('tbody tr')).toHaveCount(1)
  await other.getByTestId('secret-input-0').fill('ab'.repeat(32))
  await other.getByTestId('secrets-submit').click()
  await expect(other.getByTestId('key-info').locator('tbody tr')).toHaveCount(2)
  // This tab: its VALID was one key's, not the set held now; the key list is the engine's; a note says why.
  await expect(page.getByTestId('keys-cleared')).toContainText('changed in another tab')
  await expect(page.getByTestId('verdict-word')).toHaveCount(0)
  await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(2)
  expect(await page.getByTestId('key-info').locator('tbody').textContent()).toBe(
    await other.getByTestId('key-info').locator('tbody').textContent(),
  )
  // The tab that typed the key says nothing of another tab.
  await expect(other.getByTestId('keys-cleared')).toHaveCount(0)
  await other.close()
})
