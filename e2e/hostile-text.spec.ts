// The screen shows a chain's text as data (src/shared/printable.ts): a model, provider, span name,
// attribute, id or path holding a bidi override, a zero-width space, a line separator or a control
// draws it as `<U+XXXX>`, never as an invisible mark that makes what follows read as something else
// (UAX #9 §2: U+202E shows `fdp.db` as `bd.pdf`). The chains come from a seeded generator
// (e2e/hostile-chain.ts); every text node, attribute and field value on the page is checked with
// the project's one test, hasUnprintable(), in each view a click reaches.
import { expect, test, type Page } from '@playwright/test'
import { hasUnprintable } from '../src/shared/printable'
import { writeHostileChain } from './hostile-chain'
import { start } from './helpers'

interface Shown {
  where: string
  text: string
}

/** Every string the page draws or reads out: text nodes, attribute values, field values. */
async function everythingShown(page: Page): Promise<Shown[]> {
  return page.evaluate(() => {
    const out: { where: string; text: string }[] = []
    const name = (el: Element): string =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[${el.getAttribute('data-testid')}]` : ''}`
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const parent = n.parentElement!
        if (parent.closest('script,style')) continue
        // The page's own markup between elements (index.html's indents) draws nothing.
        if (/^[\n\t ]*$/.test(n.textContent ?? '')) continue
        // A <pre>'s own line breaks and indents are the program's layout of a document it wrote.
        const text = parent.closest('pre')
          ? (n.textContent ?? '').replace(/[\n\t]/g, ' ')
          : (n.textContent ?? '')
        out.push({ where: name(parent), text })
        continue
      }
      const el = n as Element
      // Attributes the browser shows (tooltips, placeholders) or reads out; a title's lines are its own.
      for (const a of ['title', 'alt', 'placeholder', 'aria-label', 'aria-description', 'aria-valuetext']) {
        const v = el.getAttribute(a)
        if (v !== null)
          out.push({ where: `${name(el)}@${a}`, text: a === 'title' ? v.replace(/\n/g, ' ') : v })
      }
    }
    return out
  })
}

async function expectAllPrintable(page: Page, step: string): Promise<void> {
  const bad = (await everythingShown(page)).filter((s) => hasUnprintable(s.text))
  expect(
    bad.slice(0, 20).map((b) => `${step}: ${b.where}: ${JSON.stringify(b.text)}`),
    `${bad.length} strings`,
  ).toEqual([])
}

for (const seed of [7, 1031, 65537]) {
  test(`a chain's hostile text is shown as data in every view (seed ${seed})`, async ({ page }) => {
    test.setTimeout(120_000)
    const chain = writeHostileChain(seed)
    try {
      await start(page)
      await page.getByTestId('open-path').fill(chain.path)
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/api/call/openChain'), { timeout: 60_000 }),
        page.getByTestId('open-path-submit').click(),
      ])
      await expect(page.getByTestId('opening')).toHaveCount(0)
      await expect(page.getByTestId('current-file')).toHaveText('chain.db')
      await expect(page.locator('[data-testid="entry-row"]').first()).toBeVisible()
      await expectAllPrintable(page, 'opened')

      for (const seq of [1, 2, 3]) {
        await page.locator(`[data-testid="entry-row"][data-seq="${seq}"]`).click()
        await expect(page.getByTestId('detail-seq')).toHaveText(String(seq))
        await expectAllPrintable(page, `entry ${seq}`)
      }
      for (const tab of ['tab-replays', 'tab-recovered', 'tab-entry']) {
        await page.getByTestId(tab).click()
        await expectAllPrintable(page, tab)
      }
      // A filter still takes the exact name (the option's value), while its text shows numbers:
      // the table lists as many rows as the option counts.
      for (const filter of ['filter-provider', 'filter-model']) {
        const option = page.getByTestId(filter).locator('option').nth(1)
        const count = /\((\d+)\)$/.exec((await option.textContent()) ?? '')![1]!
        await page.getByTestId(filter).selectOption({ index: 1 })
        await expect(page.getByTestId('entries-count')).toHaveText(new RegExp(`^${count} rows? ·`))
        await expectAllPrintable(page, filter)
        await page.getByTestId(filter).selectOption({ index: 0 })
      }
      // The share chart's tooltip and the integrity monitor over the whole chain.
      await page.getByTestId('integrity-all').check()
      await page.getByTestId('integrity-run').click()
      await expect(page.getByTestId('integrity-report')).toBeVisible()
      await page.locator('.recharts-surface').last().hover()
      await expectAllPrintable(page, 'integrity')
      // With the key: the verdict, the key table and the integrity monitor's findings.
      await page.getByTestId('secret-input-0').fill('09'.repeat(32))
      await page.getByTestId('secrets-submit').click()
      await page.getByTestId('verify-button').click()
      await expect(page.getByTestId('verdict-word')).toBeVisible()
      await expectAllPrintable(page, 'verified')
    } finally {
      chain.cleanup()
    }
  })
}
