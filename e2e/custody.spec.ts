// Chain of custody in the app, web mode (issue 25): Export as HTML, the signing-key chooser (the
// served page gives the key file's path; the engine signs, the page sees only the fingerprint),
// "Compare with an earlier report…" and "Check a report…". Reports to compare with and to check are
// written by the CLI into a temporary folder and chosen with the page's file inputs; the signed
// export is checked again with `bijotel report verify`.
import { expect, test } from '@playwright/test'
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash, createPublicKey } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fixture, openFixture, secrets, useSecrets } from './helpers'

const ROOT = path.resolve(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'bijotel')
// Made per worker, not at load: Playwright also loads a spec to list it, and that load would leave the folder behind.
let dir = ''
test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bijotel-e2e-custody-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(args: string[]): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' })
  return { status: r.status, stdout: r.stdout }
}

/** A report of a fixture written by the CLI (signed when a key is given). */
function cliReport(name: string, out: string, extra: string[] = []): string {
  const file = path.join(dir, out)
  execFileSync(
    process.execPath,
    [
      CLI,
      'report',
      '--db',
      fixture(`${name}.db`),
      '--secret-hex',
      secrets()['primary']!,
      '-o',
      file,
      ...extra,
    ],
    { stdio: 'ignore' },
  )
  return file
}

/** An Ed25519 pair from `bijotel keygen`, and its fingerprint computed here from the public key. */
function keygen(): { privatePem: string; publicPem: string; fingerprint: string } {
  const keys = mkdtempSync(path.join(dir, 'keys-'))
  execFileSync(process.execPath, [CLI, 'keygen', '--output-dir', keys], { stdio: 'ignore' })
  const publicPem = path.join(keys, 'bijotel_public.pem')
  const der = createPublicKey(readFileSync(publicPem)).export({ type: 'spki', format: 'der' })
  const raw = der.subarray(der.length - 32)
  const fingerprint = createHash('sha256').update(raw).digest('hex').slice(0, 16)
  return { privatePem: path.join(keys, 'bijotel_private.pem'), publicPem, fingerprint }
}

const EMBEDDED = /<script type="application\/json" id="bijotel-report">([\s\S]*?)<\/script>/

test('Export as HTML downloads the self-contained page with the same report embedded', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await useSecrets(page, [secrets()['primary']!])
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-html').click(),
  ])
  expect(download.suggestedFilename()).toMatch(/^bijotel-report-.+\.html$/)
  const html = readFileSync(await download.path(), 'utf8')
  expect(html).toMatch(/^<!doctype html>/i)
  expect(html).toContain('http-equiv="Content-Security-Policy"')
  const report = JSON.parse(EMBEDDED.exec(html)![1]!) as {
    chain: { entries: number; last_seq: number }
    evidence: { db: { path: string; sha256: string } }
    verification: { verdict: { valid: boolean } } | null
  }
  expect(report.chain).toMatchObject({ entries: 240, last_seq: 240 })
  expect(report.evidence.db.path).toBe(fixture('clean.db'))
  expect(report.evidence.db.sha256).toBe(
    createHash('sha256')
      .update(readFileSync(fixture('clean.db')))
      .digest('hex'),
  )
  expect(report.verification?.verdict.valid).toBe(true)
  await expect(page.getByTestId('notice')).toContainText('Report downloaded')
  // The page saved is the report the CLI checks again.
  const saved = path.join(dir, 'exported.html')
  writeFileSync(saved, html)
  const again = cli([
    'report',
    'verify',
    saved,
    '--db',
    fixture('clean.db'),
    '--secret-hex',
    secrets()['primary']!,
  ])
  expect(again.status, again.stdout).toBe(0)
})

test('web mode never chooses the signing key: no path box, the export unsigned, setSigningKey refused (issue 34)', async ({
  page,
}) => {
  const key = keygen()
  await openFixture(page, 'clean.db')
  await useSecrets(page, [secrets()['primary']!])
  await expect(page.getByTestId('signing-key-none')).toBeVisible()
  await expect(page.getByTestId('signing-key-server')).toBeVisible()
  await expect(page.getByTestId('signing-key-path')).toHaveCount(0)
  // Even the page itself, holding the app token, cannot set it over HTTP.
  const status = await page.evaluate(async (pem) => {
    const token = document.querySelector('meta[name="bijotel-app-token"]')?.getAttribute('content') ?? ''
    const r = await fetch('/api/call/setSigningKey', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Bijotel-App-Token': token },
      body: JSON.stringify({ path: pem }),
    })
    return r.status
  }, key.privatePem)
  expect(status).toBe(403)
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-report').click(),
  ])
  expect(
    (JSON.parse(readFileSync(await download.path(), 'utf8')) as { signature?: unknown }).signature,
  ).toBeUndefined()
})

test('Compare with an earlier report…: a report taken before the truncation makes the verify fail', async ({
  page,
}) => {
  // The report of the chain as it was (all 240 rows); truncated-tail is that chain with its tail cut.
  const before = cliReport('clean', 'before.html', ['--format', 'html'])
  await openFixture(page, 'truncated-tail.db')
  await useSecrets(page, [secrets()['primary']!])
  await page.getByTestId('prior-file-input').setInputFiles(before)
  await expect(page.getByTestId('prior-info')).toContainText('240 rows covered')
  await expect(page.getByTestId('prior-last-seq')).toHaveText('240')
  // The verify runs at once, against the prior.
  await expect(page.getByTestId('verdict-word')).toHaveText('BROKEN')
  await expect(page.locator('[data-testid="finding-row"][data-kind="truncated"]')).toHaveCount(1)
  await expect(page.getByTestId('prior-check-detail')).toContainText('gone')
  await expect(page.getByTestId('prior-check-rows')).toHaveAttribute('data-unchanged', 'false')

  await page.getByTestId('prior-clear').click()
  await expect(page.getByTestId('prior-info')).toHaveCount(0)
  await page.getByTestId('verify-button').click()
  await expect(page.locator('[data-testid="finding-row"][data-kind="truncated"]')).toHaveCount(0)

  // Not a report nor a verdict: one line, no prior.
  const junk = path.join(dir, 'junk.json')
  writeFileSync(junk, '{"hello": 1}')
  await page.getByTestId('prior-file-input').setInputFiles(junk)
  await expect(page.getByTestId('prior-error')).toBeVisible()
  await expect(page.getByTestId('prior-info')).toHaveCount(0)
})

test('Check a report…: a signed report reproduces against its key; one changed byte is named', async ({
  page,
}) => {
  const key = keygen()
  const signed = cliReport('clean', 'check.json', ['--sign-key', key.privatePem])
  await openFixture(page, 'clean.db')
  await useSecrets(page, [secrets()['primary']!])

  await page.getByTestId('check-public-key-input').setInputFiles(key.publicPem)
  await page.getByTestId('check-report-input').setInputFiles(signed)
  await expect(page.getByTestId('report-check')).toHaveAttribute('data-ok', 'true')
  await expect(page.getByTestId('report-check-word')).toHaveText('REPRODUCES')
  // Which chain the report is about comes first (issue 38): this very file.
  await expect(page.getByTestId('report-check-subject')).toHaveAttribute('data-status', 'same_file')
  const sig = page.getByTestId('report-check-signature')
  await expect(sig).toHaveAttribute('data-status', 'valid')
  await expect(sig).toHaveAttribute('data-key', 'provided')
  await expect(sig).toContainText(key.fingerprint)
  await expect(page.locator('[data-testid="report-check-field"][data-status="differs"]')).toHaveCount(0)
  await expect(
    page.locator('[data-testid="report-check-field"][data-field="evidence.db.sha256"]'),
  ).toHaveAttribute('data-status', 'reproduces')

  // One byte of the report changed: the signature fails and the field is named.
  const tampered = path.join(dir, 'tampered.json')
  writeFileSync(tampered, readFileSync(signed, 'utf8').replace('"entries": 240', '"entries": 241'))
  await page.getByTestId('check-report-input').setInputFiles(tampered)
  await expect(page.getByTestId('report-check')).toHaveAttribute('data-ok', 'false')
  await page
    .getByTestId('section-custody')
    .screenshot({ path: test.info().outputPath('custody-section.png') })
  await expect(page.getByTestId('report-check-word')).toHaveText('DOES NOT REPRODUCE')
  await expect(page.getByTestId('report-check-signature')).toHaveAttribute('data-status', 'invalid')
  await expect(
    page.locator('[data-testid="report-check-field"][data-field="chain.entries"]'),
  ).toHaveAttribute('data-status', 'differs')

  // Another chain's report against this chain: its evidence differs.
  const other = cliReport('body-edit', 'other.json')
  await page.getByTestId('check-public-key-clear').click()
  await page.getByTestId('check-report-input').setInputFiles(other)
  await expect(page.getByTestId('report-check')).toHaveAttribute('data-ok', 'false')
  // body-edit is this chain with one body changed: its other rows are here, so it is this chain.
  await expect(page.getByTestId('report-check-subject')).toHaveAttribute('data-status', 'same_chain')
  await expect(
    page.locator('[data-testid="report-check-field"][data-field="evidence.db.sha256"]'),
  ).toHaveAttribute('data-status', 'differs')
})
