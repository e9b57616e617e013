// The app reads the evidence in place (issue 36): opening a chain the direct reader takes makes no
// private copy — no `bijotel-evidence-<server pid>-*` folder appears under the roots a copy can go
// to (BIJOTEL_TMPDIR, /dev/shm, the OS temp folder) at any moment of the open — and the evidence
// panel says "read in place". A chain the reader declines (a hot journal, which SQLite rolls back
// before it reads) is read through a private copy, and the panel says so and why.
import { expect, test } from '@playwright/test'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hotJournalFolder, SMALL } from '../test/main/testing/exact-chains'
import { fixture, openPath, start } from './helpers'

/** The pid of the server the suite started (its command line names its port), or null. */
function serverPid(): number | null {
  const port = process.env.BIJOTEL_E2E_PORT
  if (!port || !existsSync('/proc')) return null
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')
      if (cmd.includes('serve') && cmd.includes('--port') && cmd[cmd.indexOf('--port') + 1] === port)
        return Number(p)
    } catch {
      // a process that ended meanwhile
    }
  }
  return null
}

/** Watches the copy roots for private copies made by `pid`; `stop` gives every one seen. */
function watchCopies(pid: number): { stop: () => string[] } {
  const roots = [process.env.BIJOTEL_TMPDIR, '/dev/shm', tmpdir()].filter(
    (r): r is string => typeof r === 'string' && existsSync(r),
  )
  const seen = new Set<string>()
  const look = (): void => {
    for (const r of roots)
      try {
        for (const n of readdirSync(r)) if (n.startsWith(`bijotel-evidence-${pid}-`)) seen.add(join(r, n))
      } catch {
        // unreadable root: nothing of ours there
      }
  }
  const before = new Set<string>()
  look()
  for (const s of seen) before.add(s)
  seen.clear()
  const timer = setInterval(look, 3)
  return {
    stop: () => {
      clearInterval(timer)
      look()
      return [...seen].filter((s) => !before.has(s))
    },
  }
}

for (const name of ['clean.db', 'wal-tail.db', 'rows-swapped.db']) {
  test(`${name} opens in place: no private copy is made, the panel says read in place`, async ({ page }) => {
    const pid = serverPid()
    test.skip(pid === null, 'the server process is not visible here')
    await start(page)
    const watch = watchCopies(pid!)
    await openPath(page, fixture(name))
    const sha = createHash('sha256')
      .update(readFileSync(fixture(name)))
      .digest('hex')
    await expect(page.getByTestId('evidence-db-sha256')).toHaveText(sha)
    expect(watch.stop()).toEqual([])
    await expect(page.getByTestId('evidence')).toContainText('read in place, read-only')
    await expect(page.getByTestId('evidence')).toContainText('unchanged')
  })
}

test('a chain with a hot journal is read through a private copy, and the panel says why', async ({
  page,
}) => {
  const pid = serverPid()
  test.skip(pid === null, 'the server process is not visible here')
  // The suite's cache folder is an --open-root of the served engine (playwright.config.ts).
  const cache = join(tmpdir(), 'bijotel-e2e-cache')
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, 'hot-'))
  try {
    const p = hotJournalFolder(join(dir, 'f'), { ...SMALL, rows: 80 }, (db) =>
      db.exec('DELETE FROM chain WHERE seq > 40'),
    )
    const journal = createHash('sha256')
      .update(readFileSync(`${p}-journal`))
      .digest('hex')
    await start(page)
    const watch = watchCopies(pid!)
    await openPath(page, p)
    await expect(page.getByTestId('evidence')).toContainText(
      'read through a private copy because it has a hot -journal',
    )
    // SQLite rolled the copy's journal back: the rows the writer had deleted are there.
    await expect(page.getByTestId('overview-entries')).toHaveText('80')
    expect(watch.stop().length).toBe(1)
    // The evidence's own journal is never rolled back.
    expect(
      createHash('sha256')
        .update(readFileSync(`${p}-journal`))
        .digest('hex'),
    ).toBe(journal)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
