// Deep links in web mode: a URL naming a chain, a row and filters opens exactly that view, and the
// URL follows the auditor's work so that it can be sent — a second page given it shows the same.
import { expect, test, type Page } from '@playwright/test'
import { chainRows, countInRange } from './chain-oracle'
import { fixture, openFixture, row, rowsText, secrets, useSecrets, WINDOW_SIZES } from './helpers'

const rows = chainRows(fixture('clean.db'))
const ts = (seq: number): bigint => rows.find((r) => r.seq === seq)!.timestamp_ns

test.use({ timezoneId: 'UTC' })

test('a link opens its chain at its row, with its time range', async ({ page }) => {
  const from = ts(40)
  const to = ts(80)
  const hash = new URLSearchParams({
    chain: fixture('clean.db'),
    seq: '57',
    from: from.toString(),
    to: to.toString(),
  }).toString()
  await page.goto(`/#${hash}`)
  // When the server holds another chain (an earlier spec's), the page asks first (issue 34).
  const yes = page.getByTestId('confirm-link-yes')
  await expect(
    yes.or(page.getByTestId('current-file').filter({ hasText: /^clean\.db$/ })).first(),
  ).toBeVisible()
  if (await yes.isVisible()) await yes.click()
  await expect(page.getByTestId('current-file')).toHaveText('clean.db')
  await expect(page.getByTestId('detail-seq')).toHaveText('57')
  await expect(row(page, 57)).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(countInRange(rows, from, to)))
  await expect(page.getByTestId('range-from')).not.toHaveValue('')
  // Applied, the link stays as it was (the view it describes is the one on screen).
  expect(new URL(page.url()).hash).toBe(`#${hash}`)
})

test('the URL follows the work, and a colleague’s page given it shows the same', async ({
  page,
  browser,
}) => {
  // Two pages, two opens and a confirmation: more than the default minute on a busy machine.
  test.setTimeout(150_000)
  await openFixture(page, 'clean.db')
  await page.getByTestId('filter-provider').selectOption('xai')
  await expect(page.getByTestId('entries-count')).toContainText('24 rows')
  const first = page.getByTestId('entry-row').first()
  const seq = Number(await first.getAttribute('data-seq'))
  await first.click()
  await expect(page.getByTestId('detail-seq')).toHaveText(String(seq))
  await page.getByTestId('preset-last_hour').click()
  await expect
    .poll(() => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1))))
    .toMatchObject({ chain: fixture('clean.db'), seq: String(seq), provider: 'xai' })
  const link = new URLSearchParams(new URL(page.url()).hash.slice(1))
  expect(BigInt(link.get('to')!) - BigInt(link.get('from')!)).toBe(3_600_000_000_000n)
  const url = page.url()

  // The server now holds another chain; the colleague's page opens the linked one.
  await page.getByTestId('open-path').fill(fixture('rotation.db'))
  await page.getByTestId('open-path-submit').click()
  await expect(page.getByTestId('current-file')).toHaveText('rotation.db')
  await expect.poll(() => new URL(page.url()).hash).toContain('rotation.db')

  const context = await browser.newContext({ timezoneId: 'UTC' })
  const other = await context.newPage()
  await other.goto(url)
  // The server holds rotation.db for every tab: the colleague's page asks before swapping it.
  await expect(other.getByTestId('confirm-link')).toBeVisible()
  await other.getByTestId('confirm-link-yes').click()
  await expect(other.getByTestId('current-file')).toHaveText('clean.db')
  await expect(other.getByTestId('filter-provider')).toHaveValue('xai')
  await expect(other.getByTestId('detail-seq')).toHaveText(String(seq))
  await expect(other.getByTestId('preset-last_hour')).toHaveAttribute('aria-pressed', 'true')
  const last = rows[rows.length - 1]!.timestamp_ns
  const xaiInLastHour = await other.getByTestId('entries-count').textContent()
  expect(xaiInLastHour).toMatch(/^\d+ rows/)
  expect(Number(xaiInLastHour!.split(' ')[0])).toBeLessThanOrEqual(
    countInRange(rows, last - 3_600_000_000_000n, last),
  )
  await context.close()
})

test('a link to a chain this server may not open says why, and the chain held stays', async ({ page }) => {
  await openFixture(page, 'clean.db')
  // A fresh load of the link, as a colleague's browser makes it. (A hash change on the open page and
  // then a reload raced the page's own URL sync, which can write the held chain back into the hash
  // before the reload reads it.)
  await page.goto('about:blank')
  await page.goto('/#chain=%2Fetc%2Fpasswd&seq=3')
  await page.getByTestId('confirm-link-yes').click()
  await expect(page.getByTestId('open-error')).toContainText('is outside the folders this server may read')
  await expect(page.getByTestId('current-file')).toHaveText('clean.db')
})

// ---------------------------------------------------------------------------------------------
// A link to a seq the files gave back, opened before the verdict that says so (issue 35): the
// missing seq's panel first, then — when the verdict lands and the auditor is still there — the
// Recovered tab at that seq, which stays. Loaded fresh, as a colleague's browser loads a link.

const REC = 'rec-deleted-middle.db'

function linkTo(seq: number): string {
  return `/#${new URLSearchParams({ chain: fixture(REC), seq: String(seq) }).toString()}`
}

/** Open rec-deleted-middle with its key: the engine holds its verdict; the seqs of its deleted rows. */
async function heldWithVerdict(page: Page): Promise<number[]> {
  await openFixture(page, REC)
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  const deleted = page.locator('[data-testid="finding-row"][data-kind="deleted"]').first()
  const from = Number(await deleted.locator('button').first().textContent())
  const to = Number((await deleted.locator('button').last().textContent()) ?? from)
  expect(from).toBeGreaterThan(1)
  return Array.from({ length: Math.max(1, to - from + 1) }, (_, k) => from + k)
}

async function landsInRecovered(page: Page, seq: number): Promise<void> {
  await expect(page.getByTestId('tab-recovered')).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('recovered-detail-seq')).toHaveText(String(seq))
  await expect(page.getByTestId('recovered-detail-seq')).toBeInViewport()
  await expect(page.getByTestId('detail-seq').or(page.getByTestId('missing-detail'))).toHaveCount(0)
}

for (const { width: w, height: h } of WINDOW_SIZES)
  for (const scheme of ['light', 'dark'] as const)
    test(`a link to a recovered seq, loaded fresh before the verdict arrives, ends in the Recovered tab at that seq (${w}×${h}, ${scheme})`, async ({
      page,
      browser,
    }) => {
      test.setTimeout(120_000)
      const seqs = await heldWithVerdict(page)
      const seq = seqs[(w + (scheme === 'dark' ? 1 : 0)) % seqs.length]!
      const context = await browser.newContext({
        viewport: { width: w, height: h },
        colorScheme: scheme,
        timezoneId: 'UTC',
      })
      const other = await context.newPage()
      // The verdict the engine holds reaches this page late: after the link has selected its seq.
      let release!: () => void
      const late = new Promise<void>((r) => (release = r))
      await other.route('**/api/call/lastVerdict', async (route) => {
        await late
        await route.continue()
      })
      await other.goto(linkTo(seq))
      await expect(other.getByTestId('current-file')).toHaveText(REC)
      // Before the verdict: what is known — a missing seq, its panel (never "not found").
      await expect(other.getByTestId('missing-detail')).toHaveAttribute('data-seq', String(seq))
      await expect(other.getByTestId('tab-entry')).toHaveAttribute('aria-selected', 'true')
      release()
      await landsInRecovered(other, seq)
      // And it stays so.
      await other.waitForTimeout(1000)
      await landsInRecovered(other, seq)
      await context.close()
    })

test('a link opened before the chain is verified follows the verdict the auditor then makes; moved on, it does not yank', async ({
  page,
}) => {
  test.setTimeout(150_000)
  const seqs = await heldWithVerdict(page)
  const seq = seqs[0]!
  // Another chain held, then the link loaded fresh: asked first, opened without a key.
  await openFixture(page, 'clean.db')
  await page.goto('about:blank')
  await page.goto(linkTo(seq))
  await page.getByTestId('confirm-link-yes').click()
  await expect(page.getByTestId('current-file')).toHaveText(REC)
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', String(seq))
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await landsInRecovered(page, seq)

  // The same link again, and the auditor moves to the Replays tab before verifying: stays there.
  await openFixture(page, 'clean.db')
  await page.goto('about:blank')
  await page.goto(linkTo(seq))
  await page.getByTestId('confirm-link-yes').click()
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', String(seq))
  await page.getByTestId('tab-replays').click()
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await page.waitForTimeout(1000)
  await expect(page.getByTestId('tab-replays')).toHaveAttribute('aria-selected', 'true')
})
