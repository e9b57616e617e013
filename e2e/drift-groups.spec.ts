// A chain naming a model per row (an insider's way to make the drift panel draw six charts per
// model and the engine hold buckets for each): the panel charts the 24 groups with the most rows
// and says how many more there are, with their rows; the total counts them all. Chromium, web mode.
import { expect, test } from '@playwright/test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spanRow, writeChain, type RowSpec } from '../test/main/reliability/chainkit'
import { openPath, start } from './helpers'

let dir = ''
let path = ''
const MODELS = 400
test.beforeAll(() => {
  const cache = join(tmpdir(), 'bijotel-e2e-cache')
  mkdirSync(cache, { recursive: true })
  dir = mkdtempSync(join(cache, 'drift-groups-'))
  path = join(dir, 'models.db')
  const rows: RowSpec[] = []
  const t0 = 1_764_000_000_000_000_000n
  // Model i has 1 + (i % 5) rows: the 24 with the most rows are charted.
  let n = 0
  for (let i = 0; i < MODELS; i++)
    for (let k = 0; k <= i % 5; k++)
      rows.push(
        spanRow({
          timestamp_ns: t0 + BigInt(n++) * 1_000_000_000n,
          name: 'chat',
          attributes: {
            'gen_ai.provider.name': 'p',
            'gen_ai.request.model': `m${i}`,
            'gen_ai.usage.input_tokens': 10 + k,
          },
        }),
      )
  writeChain(path, Buffer.alloc(32, 5), rows)
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('400 models: 24 groups charted, the other 376 counted with their rows', async ({ page }) => {
  await start(page)
  await openPath(page, path)
  await page.getByTestId('drift-run').click()
  await expect(page.getByTestId('drift-progress')).toHaveCount(0)
  await expect(page.getByTestId('drift-summary')).toContainText(`in ${MODELS} provider/model groups`)
  await expect(page.getByTestId('drift-group')).toHaveCount(24)
  await expect(page.getByTestId('drift-chart')).toHaveCount(24 * 6)
  const shownRows = 24 * 5
  let total = 0
  for (let i = 0; i < MODELS; i++) total += 1 + (i % 5)
  await expect(page.getByTestId('drift-omitted')).toContainText(
    `${MODELS - 24} more provider/model groups are not charted`,
  )
  await expect(page.getByTestId('drift-omitted')).toContainText(
    `${(total - shownRows).toLocaleString('en-US')} rows`,
  )
  // The group filter lists the groups charted.
  await expect(page.getByTestId('drift-group-filter').locator('option')).toHaveCount(25)
})
