// The virtualized entries table: windowing, sorting, keyboard, locate, filters, timeline zoom; and
// the table auditors expect (issue 35): sort by any column, Δ/token/cost/latency columns from the
// body (checked against SQLite's reading of the fixture), resize and hide columns (remembered),
// a context menu that copies to the clipboard and filters by a value; the layout at 1024×700 and
// 1440×900 in both themes: every default column in the table (a narrow pane scrolls sideways with
// seq and the flags in view, time readable), the find bar's controls inside it and the window, the timeline's brush inside
// its band, axe with target-size on.
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { chainRows, type OracleRow } from './chain-oracle'
import {
  fixture,
  gotoSeq,
  openFixture,
  openPath,
  row,
  rowsText,
  secrets,
  start,
  useSecrets,
  WINDOW_SIZES,
} from './helpers'

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

interface BodyValues {
  seq: number
  ts: bigint
  input: number | null
  output: number | null
  cost: number | null
  delta: bigint | null
  span: string
  provider: string
  hmac: string
  hash: string
  status: string
}

/** What the table should show of clean.db, from SQLite's reading of the file and its bodies. */
function cleanValues(): BodyValues[] {
  const rows: OracleRow[] = chainRows(fixture('clean.db'))
  return rows.map((r, i) => {
    const body = JSON.parse(r.canonical_body) as { attributes: Record<string, unknown>; status_code: unknown }
    const attrs = body.attributes
    const n = (v: unknown): number | null => (typeof v === 'number' ? v : null)
    return {
      seq: r.seq,
      ts: r.timestamp_ns,
      input: n(attrs['gen_ai.usage.input_tokens']),
      output: n(attrs['gen_ai.usage.output_tokens']),
      cost: n(attrs['bijotel.cost_usd']),
      delta: i === 0 ? null : r.timestamp_ns - rows[i - 1]!.timestamp_ns,
      span: r.span_name,
      provider: String(attrs['gen_ai.provider.name'] ?? attrs['gen_ai.system'] ?? 'unknown'),
      hmac: r.hmac_hash,
      hash: r.canonical_hash,
      status: typeof body.status_code === 'string' ? body.status_code : '—',
    }
  })
}

/** The first seq of `ORDER BY key, seq` (missing first), and of its exact reverse. */
function ends<T extends number | bigint>(
  rows: BodyValues[],
  key: (r: BodyValues) => T | null,
): [number, number] {
  const sorted = [...rows].sort((a, b) => {
    const x = key(a)
    const y = key(b)
    if (x === null || y === null) return x === y ? a.seq - b.seq : x === null ? -1 : 1
    return x < y ? -1 : x > y ? 1 : a.seq - b.seq
  })
  return [sorted[0]!.seq, sorted[sorted.length - 1]!.seq]
}

/** Show columns from the Columns menu (a no-op for a column already shown). */
async function showColumns(page: Page, ids: string[]): Promise<void> {
  await page.getByTestId('columns-button').click()
  for (const id of ids) await page.getByTestId(`column-toggle-${id}`).check()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('columns-panel')).toHaveCount(0)
}

const firstSeq = (page: Page) => page.getByTestId('entry-row').first()
const header = (page: Page, id: string) => page.locator(`[role="columnheader"][data-col="${id}"]`)

test('sorts by tokens, cost, latency and Δ time both ways, as SQLite orders the rows', async ({ page }) => {
  const v = cleanValues()
  await openFixture(page, 'clean.db')
  await showColumns(page, ['input_tokens', 'output_tokens', 'cost', 'delta', 'latency', 'span'])
  const cases: [string, [number, number]][] = [
    ['input_tokens', ends(v, (r) => r.input)],
    ['output_tokens', ends(v, (r) => r.output)],
    ['cost', ends(v, (r) => r.cost)],
    ['delta', ends(v, (r) => r.delta)],
  ]
  for (const [id, [asc, desc]] of cases) {
    await page.getByTestId(`sort-${id}`).click()
    await expect(header(page, id)).toHaveAttribute('aria-sort', 'ascending')
    await expect(firstSeq(page)).toHaveAttribute('data-seq', String(asc))
    // Keyboard: the header's button again reverses.
    await page.getByTestId(`sort-${id}`).press('Enter')
    await expect(header(page, id)).toHaveAttribute('aria-sort', 'descending')
    await expect(firstSeq(page)).toHaveAttribute('data-seq', String(desc))
    await expect(header(page, 'seq')).not.toHaveAttribute('aria-sort', /./)
  }
  // Latency and span sort too (their values come from a pass over every body).
  await page.getByTestId('sort-latency').click()
  await expect(header(page, 'latency')).toHaveAttribute('aria-sort', 'ascending')
  await page.getByTestId('sort-span').click()
  const spans = [...v].sort((a, b) => (a.span < b.span ? -1 : a.span > b.span ? 1 : a.seq - b.seq))
  await expect(firstSeq(page)).toHaveAttribute('data-seq', String(spans[0]!.seq))
})

test('Δ time, token and cost cells show the body values; none is shown as a dash, not 0', async ({
  page,
}) => {
  const v = cleanValues()
  await openFixture(page, 'clean.db')
  await showColumns(page, ['input_tokens', 'output_tokens', 'cost', 'delta'])
  for (const seq of [1, 2, 3, 50]) {
    const r = v[seq - 1]!
    if (seq === 50) await gotoSeq(page, 50)
    const cells = row(page, seq)
    const text = (x: number | null): string => (x === null ? '—' : String(x))
    await expect(cells.locator('[data-col="input_tokens"]')).toHaveText(text(r.input))
    await expect(cells.locator('[data-col="output_tokens"]')).toHaveText(text(r.output))
    await expect(cells.locator('[data-col="cost"]')).toHaveText(text(r.cost))
    if (r.delta === null) await expect(cells.locator('[data-col="delta"]')).toHaveText('—')
    else await expect(cells.locator('[data-col="delta"]')).toHaveAttribute('title', `${r.delta} ns`)
  }
})

test('columns resize by their edge and hide from the Columns menu, remembered after a reload', async ({
  page,
}) => {
  const v = cleanValues()
  await openFixture(page, 'clean.db')
  const model = header(page, 'model')
  const before = (await model.boundingBox())!.width
  const edge = (await page.getByTestId('resize-model').boundingBox())!
  await page.mouse.move(edge.x + edge.width / 2, edge.y + edge.height / 2)
  await page.mouse.down()
  await page.mouse.move(edge.x + 80, edge.y + edge.height / 2, { steps: 6 })
  await page.mouse.up()
  await expect.poll(async () => (await model.boundingBox())!.width).toBeGreaterThan(before + 60)
  const widened = (await model.boundingBox())!.width
  // Cells follow their header.
  expect(
    Math.abs((await row(page, 1).locator('[data-col="model"]').boundingBox())!.width - widened),
  ).toBeLessThan(2)

  await page.getByTestId('columns-button').click()
  // Cost hidden and shown again, then hidden; span and status (hidden by default) shown.
  await page.getByTestId('column-toggle-cost').check()
  await expect(header(page, 'cost')).toHaveCount(1)
  await page.getByTestId('column-toggle-cost').uncheck()
  await page.getByTestId('column-toggle-span').check()
  await page.getByTestId('column-toggle-status').check()
  // From the keyboard: a width typed in the menu.
  await page.getByTestId('column-width-span').fill('200')
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('columns-panel')).toHaveCount(0)
  await expect(header(page, 'cost')).toHaveCount(0)
  await expect(row(page, 1).locator('[data-col="cost"]')).toHaveCount(0)
  await expect(row(page, 1).locator('[data-col="status"]')).toHaveText(v[0]!.status)
  await expect.poll(async () => Math.round((await header(page, 'span').boundingBox())!.width)).toBe(200)

  await page.reload()
  await start(page)
  await openPath(page, fixture('clean.db'))
  await expect(header(page, 'cost')).toHaveCount(0)
  await expect(header(page, 'status')).toHaveCount(1)
  await expect(header(page, 'span')).toHaveCount(1)
  expect(Math.abs((await header(page, 'model').boundingBox())!.width - widened)).toBeLessThan(2)
})

test('the context menu copies a cell, the row and its hashes; Shift+F10 and Ctrl+C from the keyboard', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const v = cleanValues()
  await openFixture(page, 'clean.db')
  await showColumns(page, ['hash'])
  const clip = (): Promise<string> => page.evaluate(() => navigator.clipboard.readText())
  await row(page, 3).locator('[data-col="hash"]').click({ button: 'right' })
  const menu = page.getByTestId('row-menu')
  await expect(menu).toBeVisible()
  await expect(menu.getByRole('menuitem').first()).toBeFocused()
  await page.getByTestId('menu-copy-cell').click()
  await expect.poll(clip).toBe(v[2]!.hash)
  await expect(page.getByTestId('notice')).toContainText('Copied')

  await row(page, 4).click({ button: 'right' })
  await page.getByTestId('menu-copy-hmac').click()
  await expect.poll(clip).toBe(v[3]!.hmac)
  await row(page, 4).click({ button: 'right' })
  await page.getByTestId('menu-copy-canonical').click()
  await expect.poll(clip).toBe(v[3]!.hash)
  await row(page, 4).click({ button: 'right' })
  await page.getByTestId('menu-copy-seq').click()
  await expect.poll(clip).toBe('4')
  await row(page, 4).click({ button: 'right' })
  await page.getByTestId('menu-copy-row').click()
  await expect.poll(clip).toMatch(/^4\t/)
  expect((await clip()).split('\t')).toContain(v[3]!.hash)

  // Keyboard: the cursor's row, the menu on Shift+F10 (Escape closes it, focus back on the grid).
  await page.getByTestId('entries-list').focus()
  await page.keyboard.press('Home')
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Shift+F10')
  await expect(menu).toBeVisible()
  await expect(menu.getByRole('menuitem').first()).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await expect(page.getByTestId('menu-copy-row')).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(menu).toHaveCount(0)
  await expect(page.getByTestId('entries-list')).toBeFocused()
  await page.keyboard.press('ControlOrMeta+c')
  await expect.poll(clip).toMatch(/^2\t/)
})

test('filter by this value: span name and provider from the context menu', async ({ page }) => {
  const v = cleanValues()
  await openFixture(page, 'clean.db')
  await showColumns(page, ['span'])
  const span = v[0]!.span
  await row(page, 1).locator('[data-col="span"]').click({ button: 'right' })
  await page.getByTestId('menu-filter-spanName').click()
  const n = v.filter((r) => r.span === span).length
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(n))
  await expect(page.getByTestId('filter-chip-spanName')).toContainText(span)
  await page.getByTestId('filter-chip-spanName').getByRole('button').click()
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(240))

  const provider = v[1]!.provider
  await row(page, 2).locator('[data-col="provider"]').click({ button: 'right' })
  await page.getByTestId('menu-filter-provider').click()
  await expect(page.getByTestId('filter-provider')).toHaveValue(provider)
  await expect(page.getByTestId('entries-count')).toContainText(
    rowsText(v.filter((r) => r.provider === provider).length),
  )
})

/** A box inside another (half a pixel of rounding allowed). */
function inside(
  what: string,
  r: { x: number; y: number; width: number; height: number },
  o: { x: number; y: number; width: number; height: number },
): void {
  expect(r.x, `${what}: left`).toBeGreaterThanOrEqual(o.x - 0.5)
  expect(r.y, `${what}: top`).toBeGreaterThanOrEqual(o.y - 0.5)
  expect(r.x + r.width, `${what}: right`).toBeLessThanOrEqual(o.x + o.width + 0.5)
  expect(r.y + r.height, `${what}: bottom`).toBeLessThanOrEqual(o.y + o.height + 0.5)
}

// The layout checks run at both sizes in both themes; the behaviour tests above run once.
for (const scheme of ['light', 'dark'] as const) {
  for (const size of WINDOW_SIZES) {
    test.describe(`${scheme} ${size.width}×${size.height}`, () => {
      test.use({ colorScheme: scheme, viewport: size })
      test.describe.configure({ timeout: 180_000 })

      test('every default column is in the table; scrolled sideways, seq and the flags stay in view, time readable', async ({
        page,
      }) => {
        await page.addInitScript(() => {
          for (const k of Object.keys(localStorage))
            if (k.startsWith('bijotel.table-columns:')) localStorage.removeItem(k)
        })
        test.setTimeout(90_000)
        await openFixture(page, 'rotation.db')
        // The primary key alone: rows from seq 161 are flagged (⚑ in the flags column).
        await useSecrets(page, [secrets()['primary']!])
        await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
        await gotoSeq(page, 161)
        const list = page.getByTestId('entries-list')
        const grid = (await list.boundingBox())!
        const r = row(page, 161)
        await expect(r).toBeInViewport()
        // The default columns (issue 35's Δ time, tokens, cost and latency among them) are all
        // headers of the table, whatever the window's width: none is left out for want of room.
        for (const id of [
          'seq',
          'time',
          'delta',
          'provider',
          'model',
          'span',
          'input_tokens',
          'output_tokens',
          'cost',
          'latency',
          'hash',
        ])
          await expect(page.locator(`[role="columnheader"][data-col="${id}"]`), id).toHaveCount(1)
        const cells = [r.locator('[data-col="seq"]'), r.locator('.c-flags .flag')]
        // seq and the flags inside the table, their text whole, at either end of a sideways scroll.
        for (const left of [0, 1e6]) {
          await list.evaluate((el, x) => el.scrollTo({ left: x }), left)
          for (const cell of cells) {
            inside(`cell at scroll ${left}`, (await cell.boundingBox())!, grid)
            expect(await cell.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
          }
        }
        await list.evaluate((el) => el.scrollTo({ left: 0 }))
        const time = r.locator('[data-col="time"]')
        inside('time', (await time.boundingBox())!, grid)
        expect(await time.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
        await expect(r.locator('[data-col="seq"]')).toHaveText('161')
        await expect(r.locator('.c-flags .flag')).toBeVisible()
      })

      test('the find bar: every control inside the bar and the window; the brush inside the charts band', async ({
        page,
      }) => {
        await openFixture(page, 'clean.db')
        const bar = page.getByTestId('find-bar')
        const b = (await bar.boundingBox())!
        const vp = { x: 0, y: 0, ...page.viewportSize()! }
        inside('find bar', b, vp)
        const controls = bar.locator('input, button, label, select')
        const n = await controls.count()
        expect(n).toBeGreaterThan(8)
        for (let i = 0; i < n; i++) {
          const c = controls.nth(i)
          const name = (await c.getAttribute('data-testid')) ?? (await c.textContent()) ?? String(i)
          inside(name, (await c.boundingBox())!, b)
        }
        // Match case: a compact toggle with a name and a tooltip, and it works from the keyboard.
        const mc = page.getByTestId('search-case')
        await expect(mc).toHaveAccessibleName('match case')
        await expect(page.locator('label', { has: mc })).toHaveAttribute('title', /match case/)
        await mc.focus()
        await page.keyboard.press('Space')
        await expect(mc).toBeChecked()
        // Two lines at most: the bar did not grow into the charts' room.
        expect(b.height).toBeLessThanOrEqual(80)
        const band = page.locator('.main-views')
        await band.evaluate((el) => el.scrollTo(0, 0))
        const bandBox = (await band.boundingBox())!
        inside(
          'timeline brush',
          (await page.locator('.main-views .recharts-brush').first().boundingBox())!,
          bandBox,
        )
        inside('timeline', (await page.getByTestId('timeline').boundingBox())!, bandBox)
        await expect(page.getByTestId('entries-list')).toBeInViewport()
      })

      test('the table with its menus passes axe (WCAG 2.2 target-size on)', async ({ page }) => {
        await openFixture(page, 'clean.db')
        const scan = async (view: string): Promise<void> => {
          const result = await new AxeBuilder({ page })
            .include('[data-testid="entries"]')
            .include('[data-testid="find-bar"]')
            .options({ rules: { 'target-size': { enabled: true } } })
            .analyze()
          const bad = result.violations.filter(
            (x) => x.impact === 'serious' || x.impact === 'critical' || x.id === 'target-size',
          )
          const lines = bad.flatMap((x) =>
            x.nodes.slice(0, 5).map((nd) => `${view}: ${x.id} at ${nd.target.join(' ')}`),
          )
          expect(lines, lines.join('\n')).toEqual([])
        }
        await scan('table')
        await page.getByTestId('columns-button').click()
        await scan('columns menu')
        await page.keyboard.press('Escape')
        await row(page, 2).click({ button: 'right' })
        await expect(page.getByTestId('row-menu')).toBeVisible()
        await scan('context menu')
      })
    })
  }
}
