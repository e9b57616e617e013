// Chain of custody as the desktop app runs it (issue 25), without an Electron binary: the built
// renderer with the stand-in preload bridge driving the real handler table (e2e/shell/). The
// signing key is chosen with the (stand-in) open dialog and kept by the engine; Save as HTML… and
// Print to PDF… write through the save dialog. Print to PDF is Electron's printToPDF in the app;
// here Chromium's own (Playwright's page.pdf) prints the same HTML page.
import { expect, test } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { createHash, createPublicKey } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fixture, secrets } from './helpers'
import { startShellServer, type ShellServer } from './shell/shell-server'
import { standInBridgeScript } from './shell/stand-in-bridge'

const CLI = path.resolve(__dirname, '..', 'bin', 'bijotel')
const CLEAN = fixture('clean.db')
const EMBEDDED = /<script type="application\/json" id="bijotel-report">([\s\S]*?)<\/script>/
// Made per worker, not at load: Playwright also loads a spec to list it, and that load would leave the folder behind.
let dir = ''
test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bijotel-e2e-custody-desktop-'))
})
let shell: ShellServer

test.beforeEach(async ({ page }) => {
  shell = await startShellServer()
  await page.addInitScript({ content: await standInBridgeScript() })
})
test.afterEach(async () => shell.close())
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

function keygen(): { privatePem: string; fingerprint: string } {
  const keys = mkdtempSync(path.join(dir, 'keys-'))
  execFileSync(process.execPath, [CLI, 'keygen', '--output-dir', keys], { stdio: 'ignore' })
  const der = createPublicKey(readFileSync(path.join(keys, 'bijotel_public.pem'))).export({
    type: 'spki',
    format: 'der',
  })
  const fingerprint = createHash('sha256')
    .update(der.subarray(der.length - 32))
    .digest('hex')
    .slice(0, 16)
  return { privatePem: path.join(keys, 'bijotel_private.pem'), fingerprint }
}

function saved(ext: string): string {
  const files = readdirSync(shell.saveDir).filter((f) => f.endsWith(ext))
  expect(files).toHaveLength(1)
  return path.join(shell.saveDir, files[0]!)
}

test('the key chosen in the dialog signs Save as HTML… and Print to PDF…; cancelling keeps it', async ({
  page,
  browser,
}) => {
  const key = keygen()
  shell.printToPdf = async (html) => {
    const printer = await browser.newPage()
    try {
      await printer.setContent(html)
      return await printer.pdf({ format: 'A4', printBackground: true })
    } finally {
      await printer.close()
    }
  }
  await page.goto(shell.url)
  shell.nextPick = CLEAN
  await page.getByTestId('open-dialog').click()
  await expect(page.getByTestId('evidence-db-path')).toHaveText(CLEAN)
  await page.getByTestId('secret-input-0').fill(secrets()['primary']!)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(1)

  await expect(page.getByTestId('signing-key-path')).toHaveCount(0)
  shell.nextKeyPick = key.privatePem
  await page.getByTestId('signing-key-pick').click()
  await expect(page.getByTestId('signing-key-fingerprint')).toHaveText(key.fingerprint)
  shell.nextKeyPick = null
  await page.getByTestId('signing-key-pick').click()
  await expect.poll(() => shell.calls.filter((c) => c === 'pickSigningKey').length).toBe(2)
  await expect(page.getByTestId('signing-key-fingerprint')).toHaveText(key.fingerprint)

  await page.getByTestId('export-html').click()
  await expect(page.getByTestId('notice')).toContainText(`Report saved to ${shell.saveDir}`)
  const html = readFileSync(saved('.html'), 'utf8')
  const report = JSON.parse(EMBEDDED.exec(html)![1]!) as {
    chain: { entries: number }
    signature: { fingerprint: string }
  }
  expect(report.chain.entries).toBe(240)
  expect(report.signature.fingerprint).toBe(key.fingerprint)

  await page.getByTestId('export-pdf').click()
  await expect(page.getByTestId('notice')).toContainText('.pdf')
  const pdf = readFileSync(saved('.pdf'))
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
  expect(pdf.length).toBeGreaterThan(10_000)

  // A failed print is one line, and nothing is written.
  shell.printToPdf = null
  await page.getByTestId('export-pdf').click()
  await expect(page.getByTestId('notice')).toContainText('Export failed: ')
  expect(readdirSync(shell.saveDir).filter((f) => f.endsWith('.pdf'))).toHaveLength(1)
})
