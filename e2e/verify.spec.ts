// Keys and verification: secrets never kept in the page, verdicts as the fixtures expect.
import { expect, test } from '@playwright/test'
import { expected, openFixture, secrets, useSecrets, verify } from './helpers'

test('body-edit.db with the primary secret is BROKEN at seq 57', async ({ page }) => {
  const want = expected('body-edit')
  await openFixture(page, 'body-edit.db')
  await useSecrets(page, [secrets()['primary']!])
  // The field is cleared after submit; only the KeyInfo remains.
  await expect(page.getByTestId('secret-input-0')).toHaveValue('')
  await expect(page.getByTestId('key-info')).toContainText('hex')
  await expect(page.getByTestId('key-info')).toContainText('28')
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await expect(page.getByTestId('first-bad-seq')).toContainText(String(want.verify.first_bad_seq))
  const findings = page.getByTestId('finding-row')
  await expect(findings).toHaveCount(want.verify.findings.length)
  await expect(findings.first()).toHaveAttribute('data-kind', 'body_hash_mismatch')
  await expect(findings.first()).toContainText('57')
  // Following the first bad seq shows that row, whose body hash does not verify.
  await page.getByTestId('first-bad-seq').getByRole('button', { name: '57' }).click()
  await expect(page.getByTestId('detail-seq')).toHaveText('57')
  await expect(page.getByTestId('check-body')).toHaveAttribute('data-ok', 'false')
  await expect(page.getByTestId('check-link')).toHaveAttribute('data-ok', 'true')
  // It is marked on the timeline, and the flagged filter narrows the table and the timeline to it.
  await expect(page.getByTestId('timeline-mark')).toHaveCount(1)
  await expect(page.getByTestId('timeline-total')).toHaveText('240')
  await page.getByTestId('filter-flagged').check()
  await expect(page.getByTestId('timeline-total')).toHaveText('1')
  await expect(page.getByTestId('entries-count')).toContainText('1 row ')
  await expect(page.getByTestId('entry-row')).toHaveCount(1)
  await expect(page.getByTestId('entry-row').first()).toHaveAttribute('data-seq', '57')
})

test('clean.db verifies VALID with the primary secret; the secret never reaches the DOM', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  const primary = secrets()['primary']!
  await useSecrets(page, [primary])
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  await expect(page.getByTestId('key-segments')).toContainText('1–240')
  const html = await page.content()
  expect(html).not.toContain(primary)
  const stored = await page.evaluate(
    () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
  )
  expect(stored).not.toContain(primary)
})

test('rotation.db with both keys shows two key segments and the rotation boundary', async ({ page }) => {
  const s = secrets()
  await openFixture(page, 'rotation.db')
  await useSecrets(page, [s['primary']!, s['rotated']!])
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  await expect(page.getByTestId('key-segments').locator('tbody tr')).toHaveCount(2)
  await expect(page.getByTestId('rotation-points')).toContainText('key #1 → key #2')
})

test('verifying without a key explains what is missing', async ({ page }) => {
  await openFixture(page, 'clean.db')
  // An empty key set: the engine refuses with a clear message.
  await page.evaluate(async () => {
    const token = document.querySelector('meta[name="bijotel-app-token"]')?.getAttribute('content') ?? ''
    await fetch('/api/call/setSecrets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Bijotel-App-Token': token },
      body: '{"secrets":[]}',
    })
  })
  await page.reload()
  await page.getByTestId('verify-button').click()
  await expect(page.getByTestId('verify-error')).toContainText('secret')
})

test('the text encoding toggle sends a raw-text secret (raw-secret.db)', async ({ page }) => {
  await openFixture(page, 'raw-secret.db')
  await page.getByTestId('secret-encoding-0-text').click()
  await page.getByTestId('secret-input-0').fill(secrets()['raw_text']!)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('key-info')).toContainText('text')
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
})

test('a seq range or the last N rows verifies just that part (body-edit.db breaks at seq 57)', async ({
  page,
}) => {
  await openFixture(page, 'body-edit.db')
  await useSecrets(page, [secrets()['primary']!])
  await page.getByTestId('verify-panel').locator('summary', { hasText: 'range' }).click()
  await page.getByLabel('verify from seq').fill('1')
  await page.getByLabel('verify to seq').fill('50')
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  await expect(page.getByTestId('key-segments')).toContainText('1–50')
  await page.getByLabel('verify from seq').fill('')
  await page.getByLabel('verify to seq').fill('')
  await page.getByLabel('verify last N rows').fill('30')
  await verify(page)
  await expect(page.getByTestId('key-segments')).toContainText('211–240')
  await page.getByLabel('verify last N rows').fill('')
  await page.getByLabel('verify from seq').fill('50')
  await page.getByLabel('verify to seq').fill('60')
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await expect(page.getByTestId('first-bad-seq')).toContainText('57')
})
