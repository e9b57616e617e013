// The keyless check the engine runs on every open (`verify --keyless`), on screen before any key is
// typed: a tampered fixture's card shows the breaks `bijotel verify --keyless --json` reports (the
// CLI is the oracle), marks them on the timeline and in the table, and is announced; a clean
// fixture's card says no break was found and that the HMACs were not checked — and nothing on the
// page says VALID. With a key, the keyed verdict decides and the keyless card gives way to it.
import { expect, test, type Page } from '@playwright/test'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { VerifyVerdict } from '../src/shared/verify-types'
import { fixture, gotoSeq, openFixtureWithoutKeys, row, secrets, useSecrets, verify } from './helpers'

const CLI = path.join(__dirname, '..', 'bin', 'bijotel')

function keylessCli(name: string): { code: number | null; verdict: VerifyVerdict } {
  const r = spawnSync(process.execPath, [CLI, 'verify', '--db', fixture(name), '--keyless', '--json'], {
    encoding: 'utf8',
  })
  return { code: r.status, verdict: JSON.parse(r.stdout) as VerifyVerdict }
}

/** Every text the live region announced since the page loaded. */
async function recordAnnouncements(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { __announced: string[] }).__announced = seen
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid="announcer"]')?.textContent ?? ''
      if (t !== '' && seen[seen.length - 1] !== t) seen.push(t)
    }).observe(document, { subtree: true, childList: true, characterData: true })
  })
}

function announced(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __announced: string[] }).__announced)
}

for (const name of ['body-edit.db', 'row-deleted.db', 'rows-swapped.db', 'ts-column-edit.db']) {
  test(`${name} without a key: the card shows the breaks verify --keyless reports`, async ({ page }) => {
    const { verdict: want } = keylessCli(name)
    expect(want.hmac_checked).toBe(false)
    expect(want.findings.length).toBeGreaterThan(0)
    await recordAnnouncements(page)
    await openFixtureWithoutKeys(page, name)
    await expect(page.getByTestId('key-info')).toHaveCount(0)
    const card = page.getByTestId('keyless-card')
    await expect(card).toHaveAttribute('data-state', 'broken')
    const n = want.findings.length
    await expect(page.getByTestId('keyless-headline')).toContainText(
      `Keyless check: ${n} break${n === 1 ? '' : 's'}`,
    )
    await expect(page.getByTestId('keyless-advice')).toContainText('HMACs not checked')
    const rows = page.getByTestId('keyless-finding-row')
    await expect(rows).toHaveCount(n)
    for (const [i, f] of want.findings.entries()) {
      await expect(rows.nth(i)).toHaveAttribute('data-kind', f.kind)
      await expect(rows.nth(i)).toContainText(String(f.from_seq))
    }
    await expect
      .poll(() => announced(page))
      .toContain(
        `Keyless check finished: ${n} break${n === 1 ? '' : 's'}, first at seq ${want.first_bad_seq}; HMACs not checked.`,
      )
    // Its breaks are marked before any key (the rows it names that exist in the chain).
    await expect(page.getByTestId('timeline-mark').first()).toBeVisible()
    expect(await page.locator('body').innerText()).not.toContain('VALID')
    // A seq of the list selects its row.
    const first = want.findings[0]!
    await rows
      .first()
      .getByRole('button', { name: String(first.from_seq), exact: true })
      .click()
    await expect(page.getByTestId('detail-seq')).toHaveText(String(first.from_seq))
  })
}

test('body-edit.db: the break is flagged in the table before a key, then the keyed verdict decides', async ({
  page,
}) => {
  await openFixtureWithoutKeys(page, 'body-edit.db')
  await expect(page.getByTestId('keyless-card')).toHaveAttribute('data-state', 'broken')
  await expect(page.getByTestId('timeline-mark')).toHaveCount(1)
  await page.getByTestId('filter-flagged').check()
  await expect(page.getByTestId('entry-row')).toHaveCount(1)
  await expect(row(page, 57)).toHaveClass(/flagged/)
  await expect(row(page, 57).locator('.tag.flag')).toHaveAttribute(
    'title',
    /keyless check: body hash mismatch/,
  )
  await page.getByTestId('filter-flagged').uncheck()
  await gotoSeq(page, 57)

  await useSecrets(page, [secrets()['primary']!])
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  // The keyless card gives way: one line, no second finding list, nothing that contradicts BROKEN.
  const card = page.getByTestId('keyless-card')
  await expect(card).toHaveAttribute('data-superseded', 'true')
  await expect(card).toContainText('the keyed verdict below decides')
  await expect(page.getByTestId('keyless-finding-row')).toHaveCount(0)
  await expect(page.getByTestId('finding-row')).toHaveCount(1)
  await expect(row(page, 57).locator('.tag.flag')).toHaveAttribute('title', /verify: body hash mismatch/)
})

test('clean.db without a key: no break found, HMACs not checked, and no VALID anywhere', async ({ page }) => {
  const { code, verdict: want } = keylessCli('clean.db')
  expect(code).toBe(0)
  expect(want.findings).toEqual([])
  await recordAnnouncements(page)
  await openFixtureWithoutKeys(page, 'clean.db')
  const card = page.getByTestId('keyless-card')
  await expect(card).toHaveAttribute('data-state', 'unproven')
  await expect(page.getByTestId('keyless-headline')).toHaveText('Keyless check: no break found')
  await expect(page.getByTestId('keyless-advice')).toContainText('HMACs not checked')
  await expect(page.getByTestId('keyless-advice')).toContainText('enter a key to verify the seals')
  await expect(page.getByTestId('keyless-finding-row')).toHaveCount(0)
  await expect(page.getByTestId('timeline-mark')).toHaveCount(0)
  await expect
    .poll(() => announced(page))
    .toContain(`Keyless check finished: no break found in ${want.entries} entries; HMACs not checked.`)
  expect(await page.locator('body').innerText()).not.toContain('VALID')
  expect(await page.content()).not.toContain('VALID')
  // The card is not styled as a verdict (no VALID look).
  await expect(page.locator('.verdict-head.valid')).toHaveCount(0)
})

test('hash-edit.db: the keyless check sees no break (body and hash rewritten), the keyed verify does', async ({
  page,
}) => {
  // A forger without the key can rewrite a body with its canonical_hash: only the HMAC shows it.
  const { verdict: want } = keylessCli('hash-edit.db')
  expect(want.findings).toEqual([])
  await openFixtureWithoutKeys(page, 'hash-edit.db')
  await expect(page.getByTestId('keyless-card')).toHaveAttribute('data-state', 'unproven')
  await expect(page.getByTestId('keyless-headline')).toHaveText('Keyless check: no break found')
  await expect(page.getByTestId('keyless-advice')).toContainText('proves nothing about the seals')
  expect(await page.locator('body').innerText()).not.toContain('VALID')
  await useSecrets(page, [secrets()['primary']!])
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  // The keyless line stays under it as what was seen before the key, not as a contrary verdict.
  const card = page.getByTestId('keyless-card')
  await expect(card).toHaveAttribute('data-superseded', 'true')
  await expect(card).toHaveText(
    /Before the key: Keyless check: no break found .*the keyed verdict below decides/,
  )
  await expect(page.locator('.keyless.unproven')).toHaveCount(0)
})
