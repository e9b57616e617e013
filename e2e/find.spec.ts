// Search and export of what is filtered (issue 26), in web mode: a search is an engine job whose
// rows filter the table and the timeline; the rows in view download as JSONL, CSV or a reference
// export, and the files hold exactly the rows SQLite (on a copy) finds for the same filter.
import { expect, test, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { chainRows } from './chain-oracle'
import { fixture, openFixture, openFixtureWithoutKeys, row, secrets, useSecrets, rowsText } from './helpers'

const rows = chainRows(fixture('clean.db'))

async function search(page: Page, text: string, fields?: string[]): Promise<void> {
  if (fields) {
    for (const f of ['trace_id', 'span_id', 'span_name', 'model', 'body']) {
      const box = page.getByTestId(`search-field-${f}`)
      if (fields.includes(f)) await box.check()
      else await box.uncheck()
    }
  }
  await page.getByTestId('search-input').fill(text)
  await page.getByTestId('search-submit').click()
  await expect(page.getByTestId('search-result')).toBeVisible()
}

async function download(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()])
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') }
}

test('a trace_id finds its row; the table and the timeline show only it', async ({ page }) => {
  const target = rows.find((r) => r.seq === 57)!
  const want = rows.filter((r) => r.trace_id === target.trace_id).map((r) => r.seq)
  await openFixture(page, 'clean.db')
  await search(page, target.trace_id!)
  await expect(page.getByTestId('search-result')).toContainText(`${want.length} matching rows of 240`)
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(want.length))
  await expect(page.getByTestId('timeline-total')).toHaveText(String(want.length))
  await expect(row(page, 57)).toBeVisible()
  await expect(page.getByTestId('announcer')).toContainText('Search finished')
  await page.getByTestId('search-clear').click()
  await expect(page.getByTestId('entries-count')).toContainText('240 rows')
})

test('text inside bodies, exported as JSONL and CSV: the files hold SQLite’s rows', async ({ page }) => {
  const needle = 'grok-3-mini'
  const want = rows.filter((r) => r.canonical_body.toLowerCase().includes(needle)).map((r) => r.seq)
  expect(want.length).toBeGreaterThan(0)
  await openFixture(page, 'clean.db')
  await search(page, needle.toUpperCase(), ['body'])
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(want.length))

  const jsonl = await download(page, 'export-jsonl')
  expect(jsonl.name).toMatch(/\.jsonl$/)
  const objs = jsonl.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  expect(objs.map((o) => o['seq'])).toEqual(want)
  for (const o of objs) {
    const r = rows.find((x) => x.seq === o['seq'])!
    expect(o).toMatchObject({
      timestamp_ns: r.timestamp_ns.toString(),
      canonical_hash: r.canonical_hash,
      prev_hash: r.prev_hash,
      hmac_hash: r.hmac_hash,
    })
  }

  const csv = await download(page, 'export-csv')
  expect(csv.name).toMatch(/\.csv$/)
  const lines = csv.text.trim().split(/\r?\n/)
  const header = lines[0]!.split(',')
  const seqCol = header.indexOf('seq')
  const hashCol = header.indexOf('canonical_hash')
  expect(seqCol).toBeGreaterThanOrEqual(0)
  expect(lines.slice(1).map((l) => Number(l.split(',')[seqCol]))).toEqual(want)
  for (const l of lines.slice(1)) {
    const cells = l.split(',')
    expect(cells[hashCol]).toBe(rows.find((r) => r.seq === Number(cells[seqCol]))!.canonical_hash)
  }
})

test('a reference export of the view needs the key, and holds the view’s rows', async ({ page }) => {
  await openFixtureWithoutKeys(page, 'clean.db')
  await expect(page.getByTestId('export-reference')).toBeDisabled()
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('export-reference')).toBeEnabled()
  const from = rows.find((r) => r.seq === 100)!.timestamp_ns
  const to = rows.find((r) => r.seq === 120)!.timestamp_ns
  await page.getByTestId('range-from').fill(from.toString())
  await page.getByTestId('range-to').fill(to.toString())
  await page.getByTestId('range-apply').click()
  const want = rows.filter((r) => r.timestamp_ns >= from && r.timestamp_ns <= to)
  await expect(page.getByTestId('entries-count')).toContainText(rowsText(want.length))
  const ref = await download(page, 'export-reference')
  const doc = JSON.parse(ref.text) as {
    chain_signature: string
    entries: { seq: number; hmac_hash: string }[]
  }
  expect(typeof doc.chain_signature).toBe('string')
  expect(doc.entries.map((e) => e.seq)).toEqual(want.map((r) => r.seq))
  expect(doc.entries.map((e) => e.hmac_hash)).toEqual(want.map((r) => r.hmac_hash))
})
