// Export: a real download of the report, valid against schema/integrity-report.schema.json.
import { expect, test } from '@playwright/test'
import Ajv2020 from 'ajv/dist/2020'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { dropFile, expected, fixture, openFixture, row, secrets, useSecrets, verify } from './helpers'

const SCHEMA = path.resolve(__dirname, '..', 'schema', 'integrity-report.schema.json')

test('exports the report as JSON that validates against the schema', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await useSecrets(page, [secrets()['primary']!])
  await verify(page)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  await dropFile(row(page, 8), fixture('clean.replay-8.txt'))
  await expect(page.getByTestId('replay-verdict')).toHaveText('MISMATCH')

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-report').click(),
  ])
  expect(download.suggestedFilename()).toMatch(/^bijotel-report-.+\.json$/)
  const file = await download.path()
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    evidence: { db: { path: string } }
    chain: { entries: number }
    verification: { verdict: { valid: boolean } } | null
    integrity: { report: { window: number } }
    replay_checks: { seq: number; result: { match: boolean; reason: string | null } }[]
  }
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')) as Record<string, unknown>)
  const ok = validate(report)
  expect(validate.errors ?? []).toEqual([])
  expect(ok).toBe(true)
  expect(report.evidence.db.path).toBe(fixture('clean.db'))
  expect(report.chain.entries).toBe(240)
  expect(report.verification?.verdict.valid).toBe(true)
  expect(report.integrity.report.window).toBe(100)
  const r8 = report.replay_checks.find((c) => c.seq === 8)
  expect(r8?.result.match).toBe(false)
  expect(r8?.result.reason).toBe(expected('clean').replay.find((r) => r.seq === 8)!.expected.reason)
  await expect(page.getByTestId('notice')).toContainText('Report downloaded')
})

test('the exported report carries the integrity window chosen in the panel', async ({ page }) => {
  await openFixture(page, 'provider-shift.db')
  await page.getByTestId('integrity-window').fill('100')
  await page.getByTestId('integrity-run').click()
  await expect(page.getByTestId('cat-provider')).toHaveAttribute('data-ok', 'false')
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+e')])
  const report = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
    integrity: { report: { provider_shift: unknown; window: number } }
  }
  expect(report.integrity.report.window).toBe(100)
  expect(report.integrity.report.provider_shift).not.toBeNull()
})

test('Copy as JSON puts the report on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openFixture(page, 'clean.db')
  await page.getByTestId('copy-report').click()
  await expect(page.getByTestId('notice')).toContainText('copied')
  const text = await page.evaluate(() => navigator.clipboard.readText())
  const parsed = JSON.parse(text) as { schema_version: string; chain: { entries: number } }
  expect(parsed.chain.entries).toBe(240)
})
