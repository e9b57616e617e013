// Accessibility (WCAG 2.1 AA and best practices, axe-core's default rules) of the main views, in the light and the dark
// theme: the opened chain with the entries grid and an entry, a BROKEN verdict with its flagged row
// selected, the integrity monitor's anomalies, the replay tab, the shortcuts help, the keyless
// check's card before a key and the payload-drift panel with its anomalies. No serious or
// critical violation is allowed. Also: the entries table is a grid a keyboard and a screen reader
// can follow, and verdicts and finished jobs are announced in a live region.
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { writeDriftChain } from './drift-chain'
import {
  expected,
  gotoSeq,
  openFixture,
  openFixtureWithoutKeys,
  openPath,
  row,
  secrets,
  start,
  useSecrets,
  verify,
} from './helpers'

async function expectNoSeriousViolations(page: Page, view: string): Promise<void> {
  // axe's default rule set: WCAG 2.0/2.1 A and AA (contrast among them) and best practices.
  const result = await new AxeBuilder({ page }).analyze()
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  const lines = serious.flatMap((v) =>
    v.nodes
      .slice(0, 5)
      .map((n) => `${view}: ${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
  )
  expect(lines, lines.join('\n')).toEqual([])
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} theme`, () => {
    test.use({ colorScheme: scheme })

    // axe reads every node of the page: a scan takes seconds on a busy machine.
    test.describe.configure({ timeout: 180_000 })

    test('the opened chain and an entry pass axe', async ({ page }) => {
      await openFixture(page, 'clean.db')
      await gotoSeq(page, 5)
      // One top-level heading names the page (axe's page-has-heading-one is only "moderate").
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1)
      await expectNoSeriousViolations(page, 'clean chain, entry 5')
    })

    test('a BROKEN verdict with its flagged row selected passes axe', async ({ page }) => {
      await openFixture(page, 'body-edit.db')
      await useSecrets(page, [secrets()['primary']!])
      await verify(page)
      await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
      await gotoSeq(page, 57)
      await expectNoSeriousViolations(page, 'BROKEN verdict, flagged row 57')
    })

    test('integrity anomalies, a typed range, the replay tab and the help pass axe', async ({ page }) => {
      await openFixture(page, 'burst.db')
      await expect(page.getByTestId('integrity-headline')).toBeVisible()
      await page.getByTestId('preset-last_hour').click()
      await page.getByTestId('tab-replays').click()
      await expectNoSeriousViolations(page, 'integrity anomalies, typed range, replay tab')
      await page.locator('body').click({ position: { x: 5, y: 5 } })
      await page.keyboard.press('?')
      await expect(page.getByRole('dialog')).toBeVisible()
      await expectNoSeriousViolations(page, 'shortcuts help')
    })

    test('the keyless card before a key and the drift panel with anomalies pass axe', async ({ page }) => {
      await openFixtureWithoutKeys(page, 'body-edit.db')
      await expect(page.getByTestId('keyless-card')).toHaveAttribute('data-state', 'broken')
      await expectNoSeriousViolations(page, 'keyless card with a break')
      const chain = writeDriftChain()
      try {
        await start(page)
        await openPath(page, chain.path)
        await page.getByTestId('drift-window').fill('50')
        await page.getByTestId('drift-run').click()
        await expect(page.getByTestId('drift-anomaly').first()).toBeVisible()
        await expectNoSeriousViolations(page, 'drift panel with anomalies')
      } finally {
        chain.cleanup()
      }
    })
  })
}

test('the entries table is a grid: header row, row count and index, cells, keyboard cursor', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  const grid = page.getByRole('grid', { name: 'chain entries' })
  // 240 rows and the header row, whatever few are in the DOM.
  await expect(grid).toHaveAttribute('aria-rowcount', '241')
  // The default columns (issue 35: seq, time, Δ time, provider, model, span, tokens, cost, latency,
  // hash) and the flags column: one header per column the Columns menu ticks.
  await page.getByTestId('columns-button').click()
  const ticked = await page.locator('[data-testid^="column-toggle-"]:checked').count()
  await page.keyboard.press('Escape')
  expect(ticked).toBeGreaterThanOrEqual(4)
  await expect(grid.locator('[role="columnheader"]')).toHaveCount(ticked + 1)
  await expect(grid.getByRole('columnheader').first()).toHaveAttribute('aria-sort', 'ascending')
  await expect(row(page, 1)).toHaveAttribute('aria-rowindex', '2')
  await expect(row(page, 1).getByRole('gridcell').first()).toHaveText('1')
  await grid.focus()
  await page.keyboard.press('End')
  await expect(row(page, 240)).toHaveAttribute('aria-rowindex', '241')
  const active = await grid.getAttribute('aria-activedescendant')
  expect(active).toBeTruthy()
  await expect(page.locator(`[id="${active}"]`)).toHaveAttribute('data-seq', '240')
  await page.keyboard.press('ArrowUp')
  await expect(page.locator(`[id="${await grid.getAttribute('aria-activedescendant')}"]`)).toHaveAttribute(
    'data-seq',
    '239',
  )
  // The header stays the grid's first row while the rows scroll under it.
  await expect(grid.getByRole('columnheader').first()).toBeInViewport()
})

test('verdicts and finished jobs are announced in a polite live region', async ({ page }) => {
  await openFixture(page, 'body-edit.db')
  const live = page.getByTestId('announcer')
  await expect(live).toHaveAttribute('aria-live', 'polite')
  // The first look's jobs end in either order: the integrity monitor and the keyless check.
  await expect(live).toContainText(/Integrity monitor finished|Keyless check finished/)
  await useSecrets(page, [secrets()['primary']!])
  await verify(page)
  const want = expected('body-edit').verify
  const n = want.findings.length
  await expect(live).toHaveText(
    `Verification finished: chain BROKEN, first bad seq ${want.first_bad_seq}, ${n} finding${n === 1 ? '' : 's'}.`,
  )
})
