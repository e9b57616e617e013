// Shared steps of the browser tests.
import { expect, type Locator, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import path from 'node:path'

export const FIXTURES = process.env.BIJOTEL_E2E_FIXTURES ?? path.resolve(__dirname, '../../shared/fixtures')
export const SAMPLE_DB = process.env.BIJOTEL_E2E_DB ?? ''

export function fixture(name: string): string {
  return path.join(FIXTURES, name)
}

export function secrets(): Record<string, string> {
  return JSON.parse(readFileSync(fixture('secrets.json'), 'utf8')) as Record<string, string>
}

export function expected(name: string): ExpectedFixture {
  return JSON.parse(readFileSync(fixture(`${name}.expected.json`), 'utf8')) as ExpectedFixture
}

export interface ExpectedFixture {
  verify: {
    valid: boolean
    entries: number
    first_bad_seq: number | null
    findings: { kind: string; from_seq: number; to_seq: number; count: number }[]
  }
  replay: {
    seq: number
    file: string
    expected: {
      match: boolean
      original_hash: string | null
      replay_hash: string
      deterministic: boolean
      model_version: string | null
      reason: string | null
    }
  }[]
}

/** Load the app and wait until it shows a chain (the one the server holds). */
export async function start(page: Page): Promise<void> {
  await page.goto('/')
  await expect(page.getByTestId('workspace')).toBeVisible()
}

/** Open a chain by path (web mode), wait for its overview. */
export async function openPath(page: Page, p: string): Promise<void> {
  await page.getByTestId('open-path').fill(p)
  // Wait for the open itself: the same chain may already be on screen from an earlier test.
  await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/call/openChain'), { timeout: 60_000 }),
    page.getByTestId('open-path-submit').click(),
  ])
  await expect(page.getByTestId('opening')).toHaveCount(0)
  await expect(page.getByTestId('current-file')).toHaveText(path.basename(p))
  await expect(page.getByTestId('evidence-db-path')).toHaveText(p)
}

export async function openFixture(page: Page, name: string): Promise<void> {
  await start(page)
  await openPath(page, fixture(name))
}

/**
 * "No key yet": an open clears the engine's keys (keys belong to a chain, issue 35), so this is an
 * open; emptying them through the contract first is kept for the same chain opened again.
 */
export async function openFixtureWithoutKeys(page: Page, name: string): Promise<void> {
  await start(page)
  await page.evaluate(async () => {
    const token = document.querySelector('meta[name="bijotel-app-token"]')?.getAttribute('content') ?? ''
    await fetch('/api/call/setSecrets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Bijotel-App-Token': token },
      body: '{"secrets":[]}',
    })
  })
  await openPath(page, fixture(name))
}

export async function useSecrets(page: Page, hexes: string[]): Promise<void> {
  for (let i = 1; i < hexes.length; i++) await page.getByTestId('secret-add').click()
  for (const [i, h] of hexes.entries()) await page.getByTestId(`secret-input-${i}`).fill(h)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(hexes.length)
}

export async function verify(page: Page): Promise<void> {
  await page.getByTestId('verify-button').click()
  await expect(page.getByTestId('verdict-word')).toBeVisible()
}

/** The window sizes the layout checks run at (issue 35's "Done when": 1024×700 and 1440×900). */
export const WINDOW_SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
] as const

/** A synthetic drop of several files at once onto an element (DataTransfer built in the page). */
export async function dropMany(target: Locator, files: { name: string; bytes: Buffer }[]): Promise<void> {
  await target.evaluate(
    (el, list) => {
      const dt = new DataTransfer()
      for (const { name, b64 } of list) {
        const bin = atob(b64)
        const bytes = new Uint8Array(bin.length)
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
        dt.items.add(new File([bytes], name, { type: 'text/plain' }))
      }
      for (const type of ['dragenter', 'dragover', 'drop'])
        el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }))
    },
    files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })),
  )
}

/** A synthetic drop of a file's bytes onto an element. */
export async function dropFile(
  target: Locator,
  filePath: string,
  name = path.basename(filePath),
): Promise<void> {
  await dropMany(target, [{ name, bytes: readFileSync(filePath) }])
}

export function row(page: Page, seq: number): Locator {
  return page.locator(`[data-testid="entry-row"][data-seq="${seq}"]`)
}

/** Scroll the table to a seq (go-to box) and return its row. */
export async function gotoSeq(page: Page, seq: number): Promise<Locator> {
  await page.getByTestId('goto-seq').fill(String(seq))
  await page.getByTestId('goto-seq').press('Enter')
  const r = row(page, seq)
  await expect(r).toBeVisible()
  await expect(page.getByTestId('detail-seq')).toHaveText(String(seq))
  return r
}

/** The table's row count as the page words it: `1 row`, `N rows` (issue 35: no "1 rows"). */
export function rowsText(n: number | string): RegExp {
  const one = n === 1 || n === '1'
  return new RegExp(`(^|[^\\d,])${n} ${one ? 'row' : 'rows'}\\b`)
}
