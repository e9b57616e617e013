// Test helper: run the built CLI (`bin/bijotel`, i.e. out/main/cli.js) as a child process.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './fixtures'

export const BIN = join(REPO_ROOT, 'bin', 'bijotel')

/** Build once if the CLI bundle is missing (scripts/test.sh builds before the tests run). */
export function ensureBuilt(): void {
  if (existsSync(join(REPO_ROOT, 'out', 'main', 'cli.js'))) return
  const r = spawnSync('npx', ['electron-vite', 'build'], { cwd: REPO_ROOT, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`)
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export function bijotel(
  args: string[],
  env: Record<string, string> = {},
  cwd: string = REPO_ROOT,
): CliResult {
  const clean = { ...process.env }
  delete clean['BIJOTEL_HMAC_SECRET']
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...clean, ...env },
    timeout: 120_000,
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}
