// The renderer as the desktop app runs it, without an Electron binary: Debian Chromium loads the
// built renderer with a stand-in of the preload bridge (e2e/shell/stand-in-entry.ts: the real
// bridge over HTTP) that drives the real handler table (e2e/shell/shell-server.ts), and every
// main → renderer event of the contract is sent to it and shown to be handled: a test per event,
// and the case of issue 22 (open A, Open Recent B: B's evidence and rows, nothing of A).
import { expect, test, type Page } from '@playwright/test'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { APP_EVENTS, type AppEventName } from '../src/shared/app-events'
import { fixture, secrets, rowsText } from './helpers'
import { startShellServer, type ShellServer } from './shell/shell-server'
import { standInBridgeScript } from './shell/stand-in-bridge'

const A = fixture('clean.db') // 240 rows
const B = fixture('truncated-tail.db') // 210 rows
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex')

let shell: ShellServer
const covered = new Set<AppEventName>()

test.beforeEach(async ({ page }) => {
  shell = await startShellServer()
  await page.addInitScript({ content: await standInBridgeScript() })
})

test.afterEach(async () => {
  await shell.close()
})

/** The app in the "desktop" page, listening to events; with `open`, that chain opened by the page. */
async function launch(page: Page, open?: string): Promise<void> {
  await page.goto(shell.url)
  await expect(page.locator('html')).toHaveAttribute('data-shell-events', 'open')
  await expect(page.getByTestId('open-dialog')).toBeVisible()
  if (open) {
    shell.nextPick = open
    await page.getByTestId('open-dialog').click()
    await showsChain(page, open)
  }
}

async function showsChain(page: Page, p: string, rows?: number): Promise<void> {
  await expect(page.getByTestId('evidence-db-path')).toHaveText(p)
  await expect(page.getByTestId('evidence-db-sha256')).toHaveText(sha(p))
  await expect(page.getByTestId('current-file')).toHaveText(path.basename(p))
  if (rows !== undefined) {
    const n = rows.toLocaleString('en-US')
    await expect(page.getByTestId('overview-entries')).toHaveText(n)
    await expect(page.getByTestId('entries-count')).toContainText(rowsText(n))
    await expect(page.getByTestId('timeline-total')).toHaveText(n)
  }
}

async function verifyWithPrimary(page: Page): Promise<void> {
  await page.getByTestId('secret-input-0').fill(secrets()['primary']!)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(1)
  await page.getByTestId('verify-button').click()
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
}

test('the page runs on the desktop transport, with the stand-in bridge', async ({ page }) => {
  await launch(page)
  const info = await page.evaluate(() =>
    (window as unknown as { bijotel: { api: { appInfo: () => Promise<unknown> } } }).bijotel.api.appInfo(),
  )
  expect(info).toMatchObject({ transport: 'ipc', has_dialogs: true })
  await expect(page.getByTestId('welcome')).toBeVisible()
})

test.describe('chainChanged', () => {
  test('open A, Open Recent B: the evidence panel shows B’s SHA-256 and B’s rows, nothing of A', async ({
    page,
  }) => {
    covered.add('chainChanged')
    await launch(page, A)
    await showsChain(page, A, 240)
    await verifyWithPrimary(page)
    await page.getByTestId('goto-seq').fill('240')
    await page.getByTestId('goto-seq').press('Enter')
    await expect(page.getByTestId('detail-seq')).toHaveText('240')

    expect(await shell.openRecent(B)).toBe(true)
    await showsChain(page, B, 210)
    await expect(page.getByTestId('overview-seq')).toHaveText('1–210')
    // What the auditor had for A is gone: its verdict, its selected row.
    await expect(page.getByTestId('verdict-word')).toHaveCount(0)
    await expect(page.getByTestId('no-selection')).toBeVisible()
    await expect(page.getByText(sha(A))).toHaveCount(0)
    // The engine and the page agree.
    const held = await shell.table.currentChain(undefined, { transport: 'ipc', trusted: true })
    expect(held?.chain).toMatchObject({ path: B, sha256: sha(B) })
    await expect(page.getByTestId('workspace')).toHaveAttribute('data-open-id', String(held!.chain.open_id))
  })

  test('a second instance opening B replaces A on screen', async ({ page }) => {
    covered.add('chainChanged')
    await launch(page, A)
    await shell.secondInstance(['electron', '.', B])
    await showsChain(page, B, 210)
  })

  test('an open by another caller of the engine is followed too; a close shows the empty state', async ({
    page,
  }) => {
    covered.add('chainChanged')
    await launch(page, A)
    await shell.table.openChain({ path: B }, { transport: 'ipc', trusted: true })
    await showsChain(page, B, 210)
    await shell.table.closeChain(undefined, { transport: 'ipc', trusted: true })
    await expect(page.getByTestId('welcome')).toBeVisible()
    await expect(page.getByTestId('workspace')).toHaveCount(0)
  })

  test('answers still on their way for A are dropped once the engine holds B', async ({ page }) => {
    covered.add('chainChanged')
    await launch(page, A)
    await showsChain(page, A, 240)
    // A's integrity run and timeline are computed for A but arrive only after B is on screen.
    const before = shell.calls.length
    const held = shell.hold(['runIntegrity', 'timeline'])
    await page.getByTestId('integrity-run').click()
    await expect.poll(() => shell.calls.slice(before).includes('runIntegrity')).toBe(true)
    await shell.openRecent(B)
    await expect(page.getByTestId('evidence-db-path')).toHaveText(B)
    held.release()
    await showsChain(page, B, 210)
    await expect(page.getByTestId('integrity-headline')).toContainText('last 100 entries, seq 111..210')
    await expect(page.getByTestId('integrity-headline')).not.toContainText('seq 141..240')
  })

  test('a staged open: the final stage (hashes now known) is the same open, the workspace stays', async ({
    page,
  }) => {
    covered.add('chainChanged')
    await shell.close()
    shell = await startShellServer({ stagedOpenRows: 100 }) // clean.db's 240 rows open in stages
    const told: unknown[] = []
    shell.session.onChainChanged((c) => told.push(c))
    await page.goto(shell.url)
    await expect(page.locator('html')).toHaveAttribute('data-shell-events', 'open')
    shell.nextPick = A
    await page.getByTestId('open-dialog').click()
    await expect(page.getByTestId('workspace')).toBeVisible()
    const id = await page.getByTestId('workspace').getAttribute('data-open-id')
    await showsChain(page, A, 240)
    await expect(page.getByTestId('workspace')).toHaveAttribute('data-open-id', id!)
    // The engine told the page twice about one open: first without hashes, then with them.
    expect(told).toEqual([
      { open_id: Number(id), path: A, sha256: null },
      { open_id: Number(id), path: A, sha256: sha(A) },
    ])
  })

  test('a chainChanged for the chain already shown keeps what the auditor did', async ({ page }) => {
    covered.add('chainChanged')
    await launch(page, A)
    await page.getByTestId('secret-add').click()
    await page.getByTestId('secret-input-1').fill('ab'.repeat(32))
    const id = await page.getByTestId('workspace').getAttribute('data-open-id')
    const held = shell.session.identity()!
    shell.emit('chainChanged', { chain: held })
    await expect(page.getByTestId('workspace')).toHaveAttribute('data-open-id', id!)
    await expect(page.getByTestId('secret-input-1')).toHaveValue('ab'.repeat(32))
  })
})

test('openFailed: an Open Recent of a file that is gone says why, and A stays', async ({ page }) => {
  covered.add('openFailed')
  await launch(page, A)
  const gone = path.join(shell.saveDir, 'moved-away.db')
  expect(await shell.openRecent(gone)).toBe(false)
  await expect(page.getByTestId('open-error')).toContainText(gone)
  await showsChain(page, A, 240)
})

test('reportSigned: every signature made with the auditor’s key is shown (issue 34)', async ({ page }) => {
  covered.add('reportSigned')
  await launch(page, A)
  shell.emit('reportSigned', { fingerprint: 'SHA256:abcd1234', generated_at: '2026-12-06T00:00:00Z' })
  await expect(page.getByTestId('notice')).toContainText('report signed with key SHA256:abcd1234')
})

test('keysChanged: keys replaced in another window take down this verdict and say why', async ({ page }) => {
  covered.add('keysChanged')
  await launch(page, A)
  await verifyWithPrimary(page)
  shell.emit('keysChanged', { keys: [{ index: 0, encoding: 'hex', bytes: 32, fingerprint: 'deadbeef' }] })
  await expect(page.getByTestId('keys-cleared')).toContainText('changed in another tab or window')
  await expect(page.getByTestId('verdict-word')).toHaveCount(0)
  await expect(page.getByTestId('key-info')).toContainText('deadbeef')
})

test('priorChanged: a prior set or cleared in another window is shown here', async ({ page }) => {
  covered.add('priorChanged')
  await launch(page, A)
  const prior = {
    kind: 'verdict' as const,
    last_seq: 240,
    head_hmac: 'ab'.repeat(32),
    rows: null,
    generated_at: null,
    signed_by: null,
  }
  shell.emit('priorChanged', { prior })
  await expect(page.getByTestId('prior-last-seq')).toHaveText('240')
  shell.emit('priorChanged', { prior: null })
  await expect(page.getByTestId('prior-info')).toHaveCount(0)
})

test('menuOpen: the native dialog opens the chain it returns', async ({ page }) => {
  covered.add('menuOpen')
  await launch(page)
  shell.nextPick = B
  shell.emit('menuOpen', null)
  await showsChain(page, B, 210)
  expect(shell.calls).toContain('pickAndOpenChain')
})

test('menuClose: the chain is closed in the engine and the window shows the empty state', async ({
  page,
}) => {
  covered.add('menuClose')
  await launch(page, A)
  shell.emit('menuClose', null)
  await expect(page.getByTestId('welcome')).toBeVisible()
  expect(await shell.table.currentChain(undefined, { transport: 'ipc', trusted: true })).toBeNull()
  expect(shell.calls).toContain('closeChain')
})

test('menuVerify: verifies the chain with the keys entered', async ({ page }) => {
  covered.add('menuVerify')
  await launch(page, A)
  await page.getByTestId('secret-input-0').fill(secrets()['primary']!)
  await page.getByTestId('secrets-submit').click()
  await expect(page.getByTestId('key-info').locator('tbody tr')).toHaveCount(1)
  shell.emit('menuVerify', null)
  await expect(page.getByTestId('verdict-word')).toHaveText('VALID')
  expect(shell.calls).toContain('startVerify')
})

test('menuIntegrity: runs the integrity monitor again with the panel’s last window', async ({ page }) => {
  covered.add('menuIntegrity')
  await launch(page, fixture('provider-shift.db'))
  await page.getByTestId('integrity-window').fill('100')
  await page.getByTestId('integrity-run').click()
  await expect(page.getByTestId('integrity-headline')).toContainText('last 100 entries')
  const runs = shell.calls.filter((c) => c === 'runIntegrity').length
  shell.emit('menuIntegrity', null)
  await expect.poll(() => shell.calls.filter((c) => c === 'runIntegrity').length).toBe(runs + 1)
  await expect(page.getByTestId('integrity-headline')).toContainText(
    '1 ANOMALIES (last 100 entries, seq 141..240)',
  )
})

test('menuExport: the save dialog’s file gets the report of the chain on screen', async ({ page }) => {
  covered.add('menuExport')
  await launch(page, A)
  shell.emit('menuExport', null)
  await expect(page.getByTestId('notice')).toContainText(`Report saved to ${shell.saveDir}`)
  const files = readdirSync(shell.saveDir).filter((f) => f.endsWith('.json'))
  expect(files).toHaveLength(1)
  const saved = path.join(shell.saveDir, files[0]!)
  expect(existsSync(saved)).toBe(true)
  const report = JSON.parse(readFileSync(saved, 'utf8')) as {
    evidence: { db: { path: string; sha256: string } }
  }
  expect(report.evidence.db).toMatchObject({ path: A, sha256: sha(A) })
})

test('menuCopyReport: the report is on the clipboard as JSON', async ({ page, context }) => {
  covered.add('menuCopyReport')
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await launch(page, B)
  shell.emit('menuCopyReport', null)
  await expect(page.getByTestId('notice')).toContainText('copied')
  const text = await page.evaluate(() => navigator.clipboard.readText())
  const report = JSON.parse(text) as { chain: { entries: number }; evidence: { db: { sha256: string } } }
  expect(report.chain.entries).toBe(210)
  expect(report.evidence.db.sha256).toBe(sha(B))
})

test('every event of the contract has a test here', () => {
  expect([...covered].sort()).toEqual([...APP_EVENTS].sort())
})
