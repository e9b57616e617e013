// The HTML report (issue 25 item 5) in Chromium: one self-contained page (nothing fetched, no
// script run, no CSP violation) that shows the same numbers as the JSON, prints to PDF, and
// embeds the JSON report unchanged. A screenshot of each page goes to the test output folder.
import { expect, test } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fixture, secrets } from './helpers'

const ROOT = path.resolve(__dirname, '..')
const CLI = path.join(ROOT, 'bin', 'bijotel')
// Made per worker, not at load: Playwright also loads a spec to list it, and that load would leave the folder behind.
let dir = ''
test.beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bijotel-e2e-html-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

function report(name: string, format: 'json' | 'html', extra: string[]): string {
  const out = path.join(dir, `${name}.${format}`)
  execFileSync(
    process.execPath,
    [CLI, 'report', '--db', fixture(`${name}.db`), '--format', format, '-o', out, ...extra],
    {
      stdio: 'ignore',
    },
  )
  return out
}

/** The value at a dotted path of the JSON report (`verification.verdict.findings.0.kind`, `….length`). */
function at(doc: unknown, dotted: string): unknown {
  let v: unknown = doc
  for (const k of dotted.split('.')) {
    if (v === null || v === undefined) return undefined
    v = k === 'length' && Array.isArray(v) ? v.length : (v as Record<string, unknown>)[k]
  }
  return v
}

const CASES = [
  {
    name: 'row-deleted',
    status: 'broken',
    args: () => ['--secret-hex', secrets()['primary']!, '--window', '500'],
  },
  {
    name: 'rotation',
    status: 'valid',
    args: () => [
      '--secret-hex',
      secrets()['primary']!,
      '--secret-hex',
      secrets()['rotated']!,
      '--all',
      '--replay',
      `1=${fixture('rotation.replay-1.txt')}`,
      '--replay',
      `8=${fixture('rotation.replay-8.txt')}`,
    ],
  },
  { name: 'provider-shift', status: 'unverified', args: () => [] },
]

for (const c of CASES) {
  test(`${c.name}: the page shows the JSON's numbers, fetches nothing, prints`, async ({ page }, info) => {
    const html = report(c.name, 'html', c.args())
    const json = JSON.parse(readFileSync(report(c.name, 'json', c.args()), 'utf8')) as Record<string, unknown>
    const requests: string[] = []
    const problems: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text())
    })
    page.on('pageerror', (e) => problems.push(e.message))
    await page.goto(`file://${html}`)
    await page.screenshot({ path: info.outputPath(`${c.name}.png`), fullPage: true })

    expect(requests).toEqual([`file://${html}`])
    expect(problems).toEqual([])
    await expect(page.locator('.verdict')).toHaveAttribute('data-status', c.status)
    await expect(page.locator('svg[data-chart="seq-strip"]')).toBeVisible()

    // The embedded JSON is the report; every number the page marks is that JSON's.
    const embedded = JSON.parse((await page.locator('#bijotel-report').textContent()) ?? '') as Record<
      string,
      unknown
    >
    const fields = await page.locator('[data-field]').evaluateAll((els) =>
      els.map((e) => ({
        field: e.getAttribute('data-field')!,
        value: e.getAttribute('data-value')!,
        text: e.textContent!,
      })),
    )
    expect(fields.length).toBeGreaterThan(8)
    for (const f of fields) {
      const v = at(embedded, f.field)
      expect(f.value, f.field).toBe(v === null || v === undefined ? '' : String(v))
      if (typeof v === 'number') expect(f.text.replace(/,/g, ''), f.field).toBe(String(v))
    }
    // The same numbers as the JSON report written for the same chain (only the times differ).
    for (const p of [
      'chain.entries',
      'chain.last_seq',
      'evidence.db.sha256',
      'integrity.report.window',
      'integrity.report.anomaly_count',
      'coverage.rows.digest',
      'verification.verdict.findings.length',
      'verification.verdict.first_bad_seq',
    ]) {
      expect(at(embedded, p), p).toEqual(at(json, p))
      const shown = fields.find((f) => f.field === p)
      if (at(json, p) !== undefined && at(json, p) !== null && p !== 'verification.verdict.first_bad_seq')
        expect(shown?.value, `${p} shown`).toBe(String(at(json, p)))
    }
    if (c.name === 'rotation') {
      await expect(page.locator('svg[data-chart="seq-strip"] rect[data-mark="key rotation"]')).toHaveCount(1)
      await expect(page.locator('#replay tbody tr')).toHaveCount(2)
    }
    if (c.name === 'provider-shift')
      await expect(page.locator('svg[data-chart="provider-share"]')).toBeVisible()
    if (c.name === 'row-deleted') {
      await expect(page.locator('#findings tbody tr').first()).toContainText('seq_gap')
      await expect(page.locator('.verdict')).toContainText('BROKEN')
    }

    const pdf = info.outputPath(`${c.name}.pdf`)
    await page.emulateMedia({ media: 'print' })
    await page.pdf({ path: pdf, format: 'A4' })
    expect(statSync(pdf).size).toBeGreaterThan(10_000)
  })
}
