// Browser tests of the renderer in web mode: `bijotel serve` (the built CLI) serves the built
// renderer and the API; Debian Chromium drives it. Run `npm run build` first, then `npx playwright test`.
import { defineConfig } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const ROOT = __dirname
const FIXTURES = path.resolve(ROOT, '../shared/fixtures')
const CLI = path.join(ROOT, 'bin', 'bijotel')

function freePort(): number {
  const out = execFileSync(
    process.execPath,
    [
      '-e',
      "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
    ],
    { encoding: 'utf8' },
  )
  return Number(out.trim())
}

const CACHE = path.join(tmpdir(), 'bijotel-e2e-cache')
const BUILT_CLI = path.join(ROOT, 'out', 'main', 'cli.js')

/** A deterministic demo chain in the cache folder, made again when the CLI is newer than it. */
function demoChain(name: string, count: number): string | null {
  const db = path.join(CACHE, name)
  try {
    mkdirSync(CACHE, { recursive: true })
    const fresh =
      existsSync(db) && existsSync(BUILT_CLI) && statSync(db).mtimeMs > statSync(BUILT_CLI).mtimeMs
    if (!fresh)
      execFileSync(process.execPath, [CLI, 'demo', '--db', db, '--count', String(count), '--force'], {
        stdio: 'ignore',
      })
    return db
  } catch {
    return null
  }
}

/** The bundled sample, or a demo chain made like it when it is not there yet. */
function sampleDb(): string {
  const bundled = path.join(ROOT, 'resources', 'sample-chain.db')
  if (existsSync(bundled)) return bundled
  return demoChain('sample-chain.db', 600) ?? path.join(FIXTURES, 'clean.db')
}

// The config is loaded by the runner and again by each worker: decide once, pass it on by env.
process.env.BIJOTEL_E2E_PORT ??= String(freePort())
process.env.BIJOTEL_E2E_DB ??= sampleDb()
process.env.BIJOTEL_E2E_FIXTURES ??= FIXTURES
// A chain big enough for the windowed table and a verify job one can cancel ('' = none).
process.env.BIJOTEL_E2E_LARGE ??= demoChain('large-chain.db', 150_000) ?? ''
// An optional 1M-row chain for the open-time measurement (e2e/open-speed.spec.ts).
const MILLION = process.env.BIJOTEL_E2E_MILLION ?? ''
const PORT = Number(process.env.BIJOTEL_E2E_PORT)
const DB = process.env.BIJOTEL_E2E_DB

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export default defineConfig({
  testDir: 'e2e',
  // One server, one opened chain at a time: the specs run one after another.
  fullyParallel: false,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  webServer: {
    command: `"${process.execPath}" "${CLI}" serve --db "${DB}" --port ${PORT} --open-root "${FIXTURES}" --open-root "${CACHE}"${MILLION ? ` --open-root "${path.dirname(MILLION)}"` : ''}`,
    url: `http://127.0.0.1:${PORT}/health`,
    cwd: ROOT,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
