// The payload-drift panel (F12, reference §8) on a chain written with drift in every dimension
// (e2e/drift-chain.ts): the groups and their six dimensions, the anomaly list equal to what
// `bijotel regression` finds for the same rows and settings (the CLI is the oracle: with a window
// of 50 it judges the same rows against the same baseline), a click selecting the seq, the z
// threshold changing the result, the empty state of a group with too few values, and cancel.
import { expect, test, type Page } from '@playwright/test'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { RegressionResult } from '../src/shared/drift-types'
import { DRIFT_MODEL, DRIFT_WINDOW, writeDriftChain } from './drift-chain'
import { openPath, start } from './helpers'

const CLI = path.join(__dirname, '..', 'bin', 'bijotel')
const LARGE = process.env.BIJOTEL_E2E_LARGE ?? ''
const DIMENSIONS = ['input_tokens', 'output_tokens', 'cost', 'cache_ratio', 'reasoning_ratio', 'ttfc_ms']

let chain: ReturnType<typeof writeDriftChain>
test.beforeAll(() => {
  chain = writeDriftChain()
})
test.afterAll(() => chain.cleanup())

/** `bijotel regression --json` of the drifting group, as the app is asked to judge it. */
function regression(z: number): RegressionResult {
  const r = spawnSync(
    process.execPath,
    [
      CLI,
      'regression',
      '--db',
      chain.path,
      '--model',
      DRIFT_MODEL,
      '--window',
      String(DRIFT_WINDOW),
      '--z-threshold',
      String(z),
      '--json',
    ],
    { encoding: 'utf8' },
  )
  expect(r.status, r.stderr).toBe(1) // 1: anomalies found
  return JSON.parse(r.stdout) as RegressionResult
}

function cliList(r: RegressionResult): string[] {
  return r.dimensions.flatMap((d) => d.anomalies.map((a) => `${a.seq}|${a.dimension}|${a.value}`)).sort()
}

async function shownList(page: Page): Promise<string[]> {
  const items = page.getByTestId('drift-anomaly')
  const out: string[] = []
  for (const el of await items.all())
    out.push(
      `${await el.getAttribute('data-seq')}|${await el.getAttribute('data-dimension')}|${await el.getAttribute('data-value')}`,
    )
  return out.sort()
}

async function analyse(page: Page, z: number): Promise<void> {
  await page.getByTestId('drift-z').fill(String(z))
  await page.getByTestId('drift-window').fill(String(DRIFT_WINDOW))
  await page.getByTestId('drift-run').click()
  await expect(page.getByTestId('drift-progress')).toHaveCount(0)
  await expect(page.getByTestId('drift-summary')).toContainText(`z ≥ ${z}`)
}

test('groups, dimensions and anomalies as bijotel regression finds them; a click selects the seq', async ({
  page,
}) => {
  await start(page)
  await openPath(page, chain.path)
  const panel = page.getByTestId('section-drift')
  await expect(panel.getByRole('heading', { name: 'Payload drift' })).toBeVisible()
  await expect(page.getByTestId('drift-not-run')).toBeVisible()

  await analyse(page, 3)
  // The chain is untouched: once the keyless check has answered, nothing is said against its rows.
  await expect(page.getByTestId('drift-rows-note')).toHaveCount(0)
  const expected = regression(3)
  expect(expected.total_anomalies).toBeGreaterThan(0)
  await expect(page.getByTestId('drift-count')).toHaveText(String(expected.total_anomalies))
  await expect(page.getByTestId('announcer')).toContainText(
    `Payload drift finished: ${expected.total_anomalies} anomalies`,
  )

  // Both provider/model groups, each with the six dimensions.
  const groups = page.getByTestId('drift-group')
  await expect(groups).toHaveCount(2)
  const drifting = page.locator(`[data-testid="drift-group"][data-model="${DRIFT_MODEL}"]`)
  const steady = page.locator('[data-testid="drift-group"][data-model="gpt-4o"]')
  await expect(drifting).toHaveAttribute('data-provider', 'anthropic')
  await expect(steady).toHaveAttribute('data-provider', 'openai')
  for (const g of [drifting, steady]) {
    const dims = await g
      .getByTestId('drift-chart')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-dimension')))
    expect(dims).toEqual(DIMENSIONS)
  }
  // The steady group has 30 rows: fewer than one window, so no baseline and nothing judged.
  await expect(steady.getByTestId('drift-baseline-note').first()).toContainText('no baseline')
  // Each drifting dimension's chart counts what the CLI found in that dimension.
  for (const d of expected.dimensions)
    await expect(
      drifting.locator(`[data-testid="drift-chart"][data-dimension="${d.dimension}"]`),
    ).toHaveAttribute('data-anomalies', String(d.anomalies.length))

  expect(await shownList(page)).toEqual(cliList(expected))
  await expect(page.getByTestId('drift-truncated')).toHaveCount(0)

  // A click on an anomaly (and Enter on one) selects its row: the entry detail opens on it.
  const first = page.getByTestId('drift-anomaly').first()
  const seq = await first.getAttribute('data-seq')
  await first.click()
  await expect(page.getByTestId('detail-seq')).toHaveText(seq!)
  const last = page.getByTestId('drift-anomaly').last()
  const lastSeq = await last.getAttribute('data-seq')
  await last.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('detail-seq')).toHaveText(lastSeq!)

  // The group filter shows one group's charts and anomalies.
  await page.getByTestId('drift-group-filter').selectOption({ label: 'openai / gpt-4o (30 rows)' })
  await expect(groups).toHaveCount(1)
  await expect(page.getByTestId('drift-anomaly')).toHaveCount(0)
  await expect(page.getByTestId('drift-no-anomalies')).toBeVisible()
  await page.getByTestId('drift-group-filter').selectOption('')
  await expect(groups).toHaveCount(2)
})

test('a higher z threshold finds what the CLI finds at that threshold, and fewer', async ({ page }) => {
  await start(page)
  await openPath(page, chain.path)
  await analyse(page, 3)
  const at3 = cliList(regression(3))
  expect(await shownList(page)).toEqual(at3)
  await analyse(page, 12)
  const at12 = cliList(regression(12))
  expect(at12.length).toBeLessThan(at3.length)
  await expect(page.getByTestId('drift-anomaly')).toHaveCount(at12.length)
  expect(await shownList(page)).toEqual(at12)
  // One dimension only: the request asks the engine for that dimension alone.
  await page.getByTestId('drift-dimension').selectOption('ttfc_ms')
  await page.getByTestId('drift-run').click()
  await expect(page.getByTestId('drift-progress')).toHaveCount(0)
  await expect(page.getByTestId('drift-chart')).toHaveCount(2)
  const ttfc = regression(12).dimensions.find((d) => d.dimension === 'ttfc_ms')!
  await expect(page.getByTestId('drift-anomaly')).toHaveCount(ttfc.anomalies.length)
})

test.describe('a large chain', () => {
  test.skip(LARGE === '', 'no large demo chain could be made (bin/bijotel demo)')
  test.setTimeout(120_000)

  test('the drift job shows progress and can be cancelled', async ({ page }) => {
    await start(page)
    await openPath(page, LARGE)
    // The keyless check of the open ends first (its announcement would replace the drift's).
    await expect(page.getByTestId('keyless-headline')).toBeVisible({ timeout: 90_000 })
    await page.getByTestId('drift-run').click()
    await expect(page.getByTestId('drift-progress')).toBeVisible()
    await page.getByTestId('drift-progress-cancel').click()
    await expect(page.getByTestId('drift-progress')).toHaveCount(0)
    await expect(page.getByTestId('drift-error')).toContainText('cancelled')
    await expect(page.getByTestId('drift-result')).toHaveCount(0)
    await expect(page.getByTestId('announcer')).toContainText('Payload drift cancelled.')
  })
})
