// Every link lands somewhere (issue 35): a seq no live row holds has a gap row in the table listed by
// seq (Wireshark-style) that says what is known of it — the verdict's findings in its words, or "not
// verified yet", and the recovered rows with a link to each — and going to such a seq (the go-to box,
// a deep link, a finding's seq, the prior comparison's truncated seq) selects that gap row; a seq the
// files gave back opens the Recovered tab at its row. On the shared fixtures.
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { readdirSync, readFileSync } from 'node:fs'
import { chainRows } from './chain-oracle'
import { gapChain } from './gap-chain'
import {
  dropMany,
  fixture,
  FIXTURES,
  openFixture,
  openPath,
  row,
  rowsText,
  secrets,
  start,
  useSecrets,
  WINDOW_SIZES,
} from './helpers'

test.describe.configure({ timeout: 120_000 })

function gapRow(page: Page, from: number, to = from) {
  return page.locator(`[data-testid="gap-row"][data-from="${from}"][data-to="${to}"]`)
}

async function goTo(page: Page, seq: number): Promise<void> {
  await page.getByTestId('goto-seq').fill(String(seq))
  await page.getByTestId('goto-seq').press('Enter')
}

/** The display order of the rows on screen: live seqs, and gap rows as `gap:from-to`. */
async function order(page: Page): Promise<string[]> {
  return page.locator('[data-testid="entry-row"], [data-testid="gap-row"]').evaluateAll((els) =>
    els
      .map((e) => ({
        top: e.getBoundingClientRect().top,
        label:
          e.getAttribute('data-testid') === 'gap-row'
            ? `gap:${e.getAttribute('data-from')}-${e.getAttribute('data-to')}`
            : String(e.getAttribute('data-seq')),
      }))
      .sort((a, b) => a.top - b.top)
      .map((x) => x.label),
  )
}

test('row-deleted: seq 40 is a gap row between 39 and 41 that quotes the verdict; going to it selects it', async ({
  page,
}) => {
  await openFixture(page, 'row-deleted.db')
  await goTo(page, 40)
  const gap = gapRow(page, 40)
  await expect(gap).toBeVisible()
  await expect(gap.getByTestId('gap-title')).toHaveText('seq 40 missing')
  await expect(gap).toHaveAttribute('aria-selected', 'true')
  const o = await order(page)
  expect(o.slice(o.indexOf('39'), o.indexOf('39') + 3)).toEqual(['39', 'gap:40-40', '41'])
  // Never "not found", never a jump to row 1.
  await expect(page.getByTestId('goto-msg')).toHaveCount(0)
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', '40')
  await expect(page.getByText(/chain entry seq=40 not found/)).toHaveCount(0)

  // The keyed verdict's words: a sequence gap and a link mismatch at 41, the row after the gap.
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await expect(gap.getByTestId('gap-summary')).toContainText('verify: sequence gap, link mismatch')
  const facts = page.getByTestId('missing-fact')
  await expect(facts.and(page.locator('[data-kind="seq_gap"]'))).toContainText('seq 41 does not follow')
  await expect(facts.and(page.locator('[data-kind="link_mismatch"]'))).toContainText(
    'the prev_hash of seq 41 is not the HMAC of the live row before it (seq 39)',
  )
  // [ and ] step to the live rows around it.
  await page.getByTestId('detail-next').click()
  await expect(page.getByTestId('detail-seq')).toHaveText('41')
  await expect(page.getByTestId('entry-detail')).toBeVisible()
  // From 41 the previous live row is 39; the gap row is reached in the table (↑ from 41).
  await page.getByTestId('detail-prev').click()
  await expect(page.getByTestId('detail-seq')).toHaveText('39')
  await page.getByTestId('entries-list').press('ArrowDown')
  await page.getByTestId('entries-list').press('Enter')
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', '40')

  // Listed newest first the gap row stays between them; sorted by time there is none.
  await page.getByTestId('sort-seq').click()
  await goTo(page, 40)
  await expect(gap).toBeVisible()
  const d = await order(page)
  expect(d.slice(d.indexOf('41'), d.indexOf('41') + 3)).toEqual(['41', 'gap:40-40', '39'])
  await page.getByTestId('sort-time').click()
  await goTo(page, 39)
  await expect(row(page, 39)).toBeVisible()
  await expect(page.getByTestId('gap-row')).toHaveCount(0)
})

test('a deep link to a missing seq lands on its gap row', async ({ page }) => {
  await start(page)
  // A fresh load of the link, as a colleague's browser makes it (a hash change on the open page
  // races the page's own URL sync).
  await page.goto('about:blank')
  await page.goto(`/#chain=${encodeURIComponent(fixture('row-deleted.db'))}&seq=40`)
  // When the server holds another chain, the page asks first (issue 34).
  const yes = page.getByTestId('confirm-link-yes')
  await expect(
    yes.or(page.getByTestId('current-file').filter({ hasText: /^row-deleted\.db$/ })).first(),
  ).toBeVisible()
  if (await yes.isVisible()) await yes.click()
  await expect(page.getByTestId('current-file')).toHaveText('row-deleted.db')
  await expect(gapRow(page, 40)).toBeVisible()
  await expect(gapRow(page, 40)).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', '40')
})

test('truncated-tail with its prior: the truncated seqs are a gap row after the last one, and seq 211 lands there', async ({
  page,
}) => {
  await openFixture(page, 'truncated-tail.db')
  // No verdict names seqs past the head yet: no gap row there, and nothing is claimed.
  await expect(page.getByTestId('gap-row')).toHaveCount(0)
  await useSecrets(page, [secrets()['primary']!])
  await page.getByTestId('prior-file-input').setInputFiles(fixture('truncated-tail.prior-verify.json'))
  await expect(page.locator('[data-testid="finding-row"][data-kind="truncated"]')).toHaveCount(1)
  const finding = page.locator('[data-testid="finding-row"][data-kind="truncated"]')
  await finding.getByRole('button', { name: '211' }).click()
  const gap = gapRow(page, 211, 240)
  await expect(gap).toBeVisible()
  await expect(gap.getByTestId('gap-title')).toHaveText('seqs 211–240 missing')
  await expect(gap).toHaveAttribute('aria-selected', 'true')
  await expect(gap.getByTestId('gap-summary')).toContainText('truncated')
  const o = await order(page)
  expect(o.slice(-2)).toEqual(['210', 'gap:211-240'])
  await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', '211')
  await expect(page.locator('[data-testid="missing-fact"][data-kind="truncated"]')).toContainText(
    'the prior report recorded rows up to seq 240',
  )
  await expect(page.getByText(/chain entry seq=211 not found/)).toHaveCount(0)
  await expect(page.getByTestId('goto-msg')).toHaveCount(0)
})

test('rec-deleted-middle: a deleted seq the files gave back opens the Recovered tab at its row', async ({
  page,
}) => {
  await openFixture(page, 'rec-deleted-middle.db')
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  const deleted = page.locator('[data-testid="finding-row"][data-kind="deleted"]').first()
  const from = Number(await deleted.locator('button').first().textContent())
  await deleted.locator('button').first().click()
  await expect(page.getByTestId('tab-recovered')).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByTestId('recovered-detail-seq')).toHaveText(String(from))
  // The table shows the gap row with the recovered rows and a link to them.
  const gap = page
    .getByTestId('gap-row')
    .filter({ has: page.getByTestId('gap-open-recovered') })
    .first()
  await expect(gap).toBeVisible()
  await expect(gap.getByTestId('gap-summary')).toContainText('recovered row')
  // The go-to box does the same for another of its seqs.
  await page.getByTestId('tab-replays').click()
  await goTo(page, from + 1)
  await expect(page.getByTestId('tab-recovered')).toHaveAttribute('aria-selected', 'true')
})

async function axeLines(page: Page, within: string[]): Promise<string[]> {
  let builder = new AxeBuilder({ page })
  for (const sel of within) builder = builder.include(sel)
  const result = await builder
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'target-size')
    .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}`))
}

for (const scheme of ['light', 'dark'] as const)
  for (const size of WINDOW_SIZES)
    test(`the gap row, the missing seq's panel and the Recovered tab pass axe (${scheme}, ${size.width}×${size.height}, WCAG 2.2 target size)`, async ({
      page,
    }) => {
      await page.setViewportSize(size)
      await page.emulateMedia({ colorScheme: scheme })
      await openFixture(page, 'row-deleted.db')
      await goTo(page, 40)
      await expect(gapRow(page, 40)).toBeVisible()
      const gaps = await axeLines(page, ['[data-testid="entries"]', '[data-testid="missing-detail"]'])
      expect(gaps, gaps.join('\n')).toEqual([])
      // A deleted seq the files gave back: the Recovered tab at its row.
      await openFixture(page, 'rec-deleted-middle.db')
      await useSecrets(page, [secrets()['primary']!])
      await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
      await page
        .locator('[data-testid="finding-row"][data-kind="deleted"]')
        .first()
        .locator('button')
        .first()
        .click()
      await expect(page.getByTestId('tab-recovered')).toHaveAttribute('aria-selected', 'true')
      await expect(page.getByTestId('recovered-panel')).toBeVisible()
      const recovered = await axeLines(page, ['[data-testid="recovered-panel"]', '[data-testid="entries"]'])
      expect(recovered, recovered.join('\n')).toEqual([])
    })

// ---------------------------------------------------------------------------------------------
// More gaps than one answer of the engine holds (100,000): every gap has its row where it lies.

test.describe('a chain with 120,000 gaps', () => {
  test.describe.configure({ timeout: 180_000 })
  let chain: ReturnType<typeof gapChain>
  test.beforeAll(() => {
    chain = gapChain()
  })

  test('a seq past the 100,000th gap lands on its gap row, between its live rows; the last gap is listed', async ({
    page,
  }) => {
    await start(page)
    await openPath(page, chain.path)
    const { seqs } = chain
    await expect(page.getByTestId('entries-count')).toContainText(
      rowsText(seqs.length.toLocaleString('en-US')),
    )
    for (const k of [100_000, 100_001, 117_777]) {
      const missing = seqs[k]! + 1
      await goTo(page, missing)
      const gap = gapRow(page, missing)
      await expect(gap).toBeVisible()
      await expect(gap).toHaveAttribute('aria-selected', 'true')
      await expect(gap.getByTestId('gap-title')).toHaveText(`seq ${missing} missing`)
      await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', String(missing))
      await expect(page.getByTestId('goto-msg')).toHaveCount(0)
      await expect(row(page, seqs[k]!)).toBeVisible()
      await expect(row(page, seqs[k + 1]!)).toBeVisible()
      const o = await order(page)
      const at = o.indexOf(`gap:${missing}-${missing}`)
      expect(o.slice(at - 1, at + 2)).toEqual([
        String(seqs[k]),
        `gap:${missing}-${missing}`,
        String(seqs[k + 1]),
      ])
    }
    // The end of the table: the last gap's row sits before the last live row (none left out).
    await page.getByTestId('entries-list').focus()
    await page.getByTestId('entries-list').press('End')
    const last = seqs[seqs.length - 1]!
    await expect(row(page, last)).toBeVisible()
    await expect(row(page, last - 2)).toBeVisible()
    const o = await order(page)
    expect(o.slice(-3)).toEqual([String(last - 2), `gap:${last - 1}-${last - 1}`, String(last)])
    // [ and ] step to the live rows around a gap past 100,000.
    const k = 110_000
    await goTo(page, seqs[k]! + 1)
    await page.getByTestId('detail-next').click()
    await expect(page.getByTestId('detail-seq')).toHaveText(String(seqs[k + 1]))
  })

  for (const { width: w, height: h } of WINDOW_SIZES)
    for (const scheme of ['light', 'dark'] as const)
      test(`the gap row past 100,000 gaps is in view with its panel (${w}×${h}, ${scheme})`, async ({
        page,
      }) => {
        await page.setViewportSize({ width: w, height: h })
        await page.emulateMedia({ colorScheme: scheme })
        await start(page)
        await openPath(page, chain.path)
        const missing = chain.seqs[108_000 + w + (scheme === 'dark' ? 1 : 0)]! + 1
        await goTo(page, missing)
        await expect(gapRow(page, missing)).toBeInViewport()
        await expect(gapRow(page, missing)).toHaveAttribute('aria-selected', 'true')
        await expect(page.getByTestId('missing-detail')).toBeInViewport()
        await expect(page.getByTestId('missing-detail')).toHaveAttribute('data-seq', String(missing))
      })
})

// ---------------------------------------------------------------------------------------------
// Every link lands, in view, at both sizes and in both themes (the layout-independent behaviour is
// checked once above; here each landing is checked where the auditor looks).

for (const { width: w, height: h } of WINDOW_SIZES)
  for (const scheme of ['light', 'dark'] as const)
    test(`every link lands in view: seq 40 on row-deleted, truncated seq 211, a recovered seq (${w}×${h}, ${scheme})`, async ({
      page,
    }) => {
      await page.setViewportSize({ width: w, height: h })
      await page.emulateMedia({ colorScheme: scheme })
      await openFixture(page, 'row-deleted.db')
      await goTo(page, 40)
      await expect(gapRow(page, 40)).toBeInViewport()
      await expect(page.getByTestId('missing-detail')).toBeInViewport()

      await openFixture(page, 'truncated-tail.db')
      await useSecrets(page, [secrets()['primary']!])
      await page.getByTestId('prior-file-input').setInputFiles(fixture('truncated-tail.prior-verify.json'))
      const truncated = page.locator('[data-testid="finding-row"][data-kind="truncated"]')
      await truncated.getByRole('button', { name: '211' }).click()
      await expect(gapRow(page, 211, 240)).toBeInViewport()
      await expect(gapRow(page, 211, 240)).toHaveAttribute('aria-selected', 'true')
      await expect(page.getByTestId('missing-detail')).toBeInViewport()

      await openFixture(page, 'rec-deleted-middle.db')
      await useSecrets(page, [secrets()['primary']!])
      const deleted = page.locator('[data-testid="finding-row"][data-kind="deleted"]').first()
      const to = Number(await deleted.locator('button').last().textContent())
      await deleted.locator('button').last().click()
      await expect(page.getByTestId('tab-recovered')).toHaveAttribute('aria-selected', 'true')
      await expect(page.getByTestId('recovered-detail-seq')).toHaveText(String(to))
      await expect(page.getByTestId('recovered-detail-seq')).toBeInViewport()
    })

// ---------------------------------------------------------------------------------------------
// The timeline's replay marks follow its provider and model filters, as its points do.

/** Provider and model of a row as the engine reads them (src/main/chain/body.ts), from SQLite's copy. */
function providerModel(body: string): { provider: string; model: string | null } {
  const a = ((JSON.parse(body) as { attributes?: Record<string, unknown> }).attributes ?? {}) as Record<
    string,
    unknown
  >
  const str = (k: string): string | null =>
    typeof a[k] === 'string' && a[k] !== '' ? (a[k] as string) : null
  return {
    provider: str('gen_ai.provider.name') ?? str('gen_ai.system') ?? 'unknown',
    model: str('gen_ai.response.model') ?? str('gen_ai.request.model') ?? str('bijotel.replay.model_version'),
  }
}

async function markCount(page: Page): Promise<number> {
  const counts = await page
    .locator('[data-testid^="legend-replay-"]')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))))
  return counts.reduce((a, b) => a + b, 0)
}

test('replay marks follow the provider and model filters of the timeline', async ({ page }) => {
  await openFixture(page, 'clean.db')
  const files = readdirSync(FIXTURES)
    .filter((f) => /^clean\.replay-\d+\.txt$/.test(f))
    .sort()
  const rows = chainRows(fixture('clean.db'))
  // Marked: a replayed row whose body carries a replay hash (else nothing was compared: no mark).
  const marked = files
    .map((f) => rows.find((r) => r.seq === Number(/replay-(\d+)\.txt$/.exec(f)![1]))!)
    .filter((r) => {
      const a = (JSON.parse(r.canonical_body) as { attributes?: Record<string, unknown> }).attributes ?? {}
      return a['bijotel.replay.output_hash'] !== undefined && a['bijotel.replay.output_hash'] !== null
    })
    .map((r) => ({ seq: r.seq, ...providerModel(r.canonical_body) }))
  await dropMany(
    page.locator('.topbar'),
    files.map((f) => ({ name: f, bytes: readFileSync(fixture(f)) })),
  )
  await expect(page.getByTestId('replay-batch-row')).toHaveCount(files.length)
  await expect.poll(() => markCount(page)).toBe(marked.length)
  const providers = [...new Set(marked.map((m) => m.provider))]
  expect(providers.length).toBeGreaterThan(1)
  let seen = 0
  for (const p of providers) {
    await page.getByTestId('filter-provider').selectOption(p)
    const want = marked.filter((m) => m.provider === p).length
    await expect.poll(() => markCount(page)).toBe(want)
    seen += want
  }
  expect(seen).toBe(marked.length)
  await page.getByTestId('filter-provider').selectOption({ index: 0 })
  await expect.poll(() => markCount(page)).toBe(marked.length)
  const models = [...new Set(marked.map((m) => m.model).filter((m): m is string => m !== null))]
  for (const m of models.slice(0, 2)) {
    await page.getByTestId('filter-model').selectOption(m)
    await expect.poll(() => markCount(page)).toBe(marked.filter((x) => x.model === m).length)
  }
  // A provider and another provider's model: no point on the timeline, no mark.
  const [p0] = providers
  const other = marked.find((x) => x.provider !== p0 && x.model !== null)!
  await page.getByTestId('filter-provider').selectOption(p0!)
  await page.getByTestId('filter-model').selectOption(other.model!)
  const both = marked.filter((x) => x.provider === p0 && x.model === other.model).length
  await expect.poll(() => markCount(page)).toBe(both)
})
