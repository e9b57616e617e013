// Replays dropped in bulk (issue 37): several files named by seq, a JSONL batch, a file whose name
// gives no seq. The panel lists each line with the status and reason `bijotel replay --batch` gives
// the same files (the CLI is run here on the same files), filters, and jumps to the entry.
import { expect, test } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { dropMany, FIXTURES, fixture, openFixture } from './helpers'

const CLI = path.resolve(__dirname, '..', 'bin', 'bijotel')
const FILES = readdirSync(FIXTURES)
  .filter((f) => f.startsWith('clean.replay-'))
  .sort()

function cliBatch(jsonl: string): Record<string, unknown>[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'bijotel-e2e-batch-'))
  const file = path.join(dir, 'batch.jsonl')
  writeFileSync(file, jsonl)
  let out: string
  try {
    out = execFileSync(
      process.execPath,
      [CLI, 'replay', '--db', fixture('clean.db'), '--batch', file, '--json'],
      {
        encoding: 'utf8',
      },
    )
  } catch (e) {
    out = (e as { stdout: string }).stdout
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

test('several replay files dropped at once: each checked against the entry its name gives, as the CLI checks them', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  await dropMany(
    page.locator('.topbar'),
    FILES.map((f) => ({ name: f, bytes: readFileSync(fixture(f)) })),
  )
  const rows = page.getByTestId('replay-batch-row')
  await expect(rows).toHaveCount(FILES.length)
  const jsonl = FILES.map((f) =>
    JSON.stringify({
      seq: Number(/replay-(\d+)\.txt$/.exec(f)![1]),
      output_base64: readFileSync(fixture(f)).toString('base64'),
      name: f,
    }),
  ).join('\n')
  const cli = cliBatch(jsonl).slice(0, -1)
  for (const c of cli) {
    const r = page.locator(`[data-testid="replay-batch-row"]`).filter({ hasText: String(c['name']) })
    await expect(r).toHaveAttribute('data-status', String(c['status']))
    if (c['reason']) await expect(r).toContainText(String(c['reason']))
  }
  // The checks join the session's (the report carries them), and the table marks the rows.
  await expect(page.getByTestId('replay-list-row')).toHaveCount(FILES.length)

  // Filter by status, then by text.
  const matched = cli.filter((c) => c['status'] === 'matched').length
  await page.getByTestId('replay-batch-status').selectOption('matched')
  await expect(rows).toHaveCount(matched)
  await page.getByTestId('replay-batch-status').selectOption('all')
  await page.getByTestId('replay-batch-filter').fill('replay-78')
  await expect(rows).toHaveCount(1)

  // A row jumps to its entry.
  await rows.first().getByRole('button', { name: '78' }).click()
  await expect(page.getByTestId('detail-seq')).toHaveText('78')
})

test('a JSONL batch dropped on the window: bad lines and missing seqs are listed with their reason', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  const jsonl = [
    JSON.stringify({
      seq: 1,
      output_base64: readFileSync(fixture('clean.replay-1.txt')).toString('base64'),
      name: 'one',
    }),
    'this is not json',
    JSON.stringify({ seq: 99999, output: 'x' }),
    JSON.stringify({ seq: 2, output: 'x', outptu: 'typo' }),
  ].join('\n')
  await dropMany(page.locator('.topbar'), [{ name: 'batch.jsonl', bytes: Buffer.from(jsonl) }])
  const rows = page.getByTestId('replay-batch-row')
  await expect(rows).toHaveCount(4)
  const cli = cliBatch(jsonl).slice(0, -1)
  for (const c of cli) {
    const r = rows.filter({
      has: page.locator(`td:first-child`, { hasText: new RegExp(`^${String(c['line'])}$`) }),
    })
    await expect(r).toHaveAttribute('data-status', String(c['status']))
    await expect(r).toContainText(String(c['error'] ?? c['reason'] ?? ''))
  }
  await expect(rows.filter({ hasText: 'seq 99999 not found in chain' })).toHaveCount(1)
  await expect(rows.filter({ hasText: 'unknown field "outptu"' })).toHaveCount(1)
})

test('a file whose name gives no seq waits for one, then is checked', async ({ page }) => {
  await openFixture(page, 'clean.db')
  await dropMany(page.locator('.topbar'), [
    { name: 'clean.replay-8.txt', bytes: readFileSync(fixture('clean.replay-8.txt')) },
    { name: 'output.txt', bytes: readFileSync(fixture('clean.replay-1.txt')) },
  ])
  await expect(page.getByTestId('replay-batch-row')).toHaveCount(1)
  const pending = page.getByTestId('replay-pending')
  await expect(pending).toContainText('output.txt')
  await pending.getByLabel('seq for output.txt').fill('1')
  await pending.getByRole('button', { name: 'Check' }).click()
  await expect(page.getByTestId('replay-batch-row')).toHaveCount(2)
  await expect(page.getByTestId('replay-batch-row').filter({ hasText: 'output.txt' })).toHaveAttribute(
    'data-status',
    'matched',
  )
  await expect(pending).toHaveCount(0)
})

test('the timeline marks the replayed entries by what their replay came to, counted in its legend; a mark selects its entry', async ({
  page,
}) => {
  await openFixture(page, 'clean.db')
  const timeline = page.getByTestId('timeline')
  await expect(timeline.getByTestId('timeline-replay-mark')).toHaveCount(0)
  await expect(page.getByTestId('legend-replay-matched')).toHaveCount(0)
  await dropMany(
    page.locator('.topbar'),
    FILES.map((f) => ({ name: f, bytes: readFileSync(fixture(f)) })),
  )
  await expect(page.getByTestId('replay-batch-row')).toHaveCount(FILES.length)
  // What each line came to, as the CLI decides it for the same files.
  const jsonl = FILES.map((f) =>
    JSON.stringify({
      seq: Number(/replay-(\d+)\.txt$/.exec(f)![1]),
      output_base64: readFileSync(fixture(f)).toString('base64'),
      name: f,
    }),
  ).join('\n')
  const want = { matched: 0, mismatch: 0, drift: 0 }
  for (const c of cliBatch(jsonl).slice(0, -1)) {
    if (c['original_hash'] === null || c['original_hash'] === undefined) continue // nothing compared: no mark
    want[c['match'] === true ? 'matched' : c['deterministic'] === true ? 'mismatch' : 'drift']++
  }
  expect(want.matched + want.mismatch + want.drift).toBeGreaterThan(2)
  for (const k of ['matched', 'mismatch', 'drift'] as const) {
    await expect(page.getByTestId(`legend-replay-${k}`)).toHaveAttribute('data-count', String(want[k]))
    if (want[k] > 0)
      await expect(
        timeline.locator(`[data-testid="timeline-replay-mark"][data-kind="${k}"]`).first(),
      ).toBeAttached()
  }
  // Every marked entry is counted once: the glyphs of a bucket add up to the marks.
  const counts = await timeline
    .getByTestId('timeline-replay-mark')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))))
  expect(counts.reduce((a, b) => a + b, 0)).toBe(want.matched + want.mismatch + want.drift)
  // A mark selects its entry.
  const mark = timeline.locator('[data-testid="timeline-replay-mark"][data-kind="mismatch"]').first()
  const seq = await mark.getAttribute('data-seq')
  await mark.dispatchEvent('click')
  await expect(page.getByTestId('detail-seq')).toHaveText(seq!)
  // The single-entry checker moves the marks too: seq 1 (seeded, matched) checked with another text.
  await page.getByTestId('goto-seq').fill('1')
  await page.getByTestId('goto-seq').press('Enter')
  await expect(page.getByTestId('detail-seq')).toHaveText('1')
  await page.getByTestId('replay-checker').locator('summary').click()
  await page.getByTestId('replay-text').fill('not what the model said')
  await page.getByTestId('replay-text-submit').click()
  await expect(page.getByTestId('legend-replay-mismatch')).toHaveAttribute(
    'data-count',
    String(want.mismatch + 1),
  )
  await expect(page.getByTestId('legend-replay-matched')).toHaveAttribute(
    'data-count',
    String(want.matched - 1),
  )
})
