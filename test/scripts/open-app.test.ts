// `npm start`'s choice (scripts/open-app.sh, run after set-up): the desktop app where it can run,
// else the CLI and web mode with the reason on one line. The download is made to fail at once (a
// mirror on a closed local port, an empty cache folder of its own), and a stand-in binary
// (ELECTRON_OVERRIDE_DIST_PATH, read by the electron package) takes the place of Electron where a
// launch is wanted, so no test downloads anything or opens a window.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../main/testing/fixtures'

const SCRIPT = join(REPO_ROOT, 'scripts', 'open-app.sh')
const tmp = mkdtempSync(join(tmpdir(), 'bijotel-open-app-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const binaryInstalled = (() => {
  try {
    return existsSync(readFileSync(join(REPO_ROOT, 'node_modules', 'electron', 'path.txt'), 'utf8'))
  } catch {
    return false
  }
})()

function run(env: Record<string, string | undefined>): {
  code: number | null
  lines: string[]
  stderr: string
} {
  const base: Record<string, string | undefined> = { ...process.env, BIJOTEL_NO_SERVE: '1' }
  for (const k of ['ELECTRON_SKIP_BINARY_DOWNLOAD', 'ELECTRON_OVERRIDE_DIST_PATH', 'ELECTRON_MIRROR'])
    delete base[k]
  const r = spawnSync('bash', [SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...base, ...env } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 120_000,
  })
  return { code: r.status, lines: r.stdout.split('\n'), stderr: r.stderr }
}

const fallback = (lines: string[]) => lines.filter((l) => l.startsWith('start: desktop app not started ('))

function expectFallback(r: ReturnType<typeof run>, reason: RegExp): void {
  expect(r.code).toBe(0)
  const said = fallback(r.lines)
  expect(said).toHaveLength(1)
  expect(said[0]).toMatch(reason)
  expect(said[0]).toMatch(/; running the CLI and web mode instead\.$/)
  // No stack trace anywhere, and the CLI ran on the bundled sample.
  expect(r.lines.some((l) => /^\s+at /.test(l))).toBe(false)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.lines).toContain('Chain VALID (300 entries).')
  expect(r.lines.some((l) => l.startsWith('Chain integrity: CLEAN'))).toBe(true)
}

describe('npm start without a usable Electron', () => {
  it.skipIf(binaryInstalled)(
    'tries the download; when it fails, says why in one line and runs the CLI',
    () => {
      const r = run({
        ELECTRON_MIRROR: 'http://127.0.0.1:9/',
        electron_config_cache: mkdtempSync(join(tmp, 'cache-')),
      })
      expect(r.lines[0]).toMatch(/^start: installing the Electron binary \d+\.\d+\.\d+/)
      expectFallback(r, /^start: desktop app not started \(the Electron download failed: .*ECONNREFUSED/)
      // Nothing was installed by the failed attempt.
      expect(existsSync(join(REPO_ROOT, 'node_modules', 'electron', 'path.txt'))).toBe(false)
    },
  )

  it.skipIf(binaryInstalled)('ELECTRON_SKIP_BINARY_DOWNLOAD set: no download, the reason says so', () => {
    const r = run({ ELECTRON_SKIP_BINARY_DOWNLOAD: '1' })
    expect(r.lines.some((l) => l.startsWith('start: installing'))).toBe(false)
    expectFallback(r, /ELECTRON_SKIP_BINARY_DOWNLOAD is set/)
  })
})

describe.skipIf(process.platform !== 'linux')('npm start with an Electron binary (a stand-in)', () => {
  const dist = mkdtempSync(join(tmp, 'dist-'))
  const marker = join(dist, 'launched.txt')
  writeFileSync(
    join(dist, 'electron'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${marker}"\necho "stand-in electron"\n`,
  )
  chmodSync(join(dist, 'electron'), 0o755)

  it('no display: does not start a window it cannot show, says why in one line', () => {
    const r = run({ ELECTRON_OVERRIDE_DIST_PATH: dist, DISPLAY: '', WAYLAND_DISPLAY: '' })
    expectFallback(r, /no display to open a window on/)
    expect(existsSync(marker)).toBe(false)
  })

  it('with a display: runs the desktop app from the repository (no fallback, no download)', () => {
    const r = run({ ELECTRON_OVERRIDE_DIST_PATH: dist, DISPLAY: ':99' })
    expect(r.code).toBe(0)
    expect(r.lines).toContain('stand-in electron')
    expect(fallback(r.lines)).toEqual([])
    expect(r.lines.some((l) => l.startsWith('start: installing'))).toBe(false)
    const args = readFileSync(marker, 'utf8').trim().split('\n')
    expect(args[0]).toBe('.')
    // As root, Chromium's own sandbox cannot start; the flag is passed only then.
    expect(args.includes('--no-sandbox')).toBe(process.getuid?.() === 0)
  })
})
