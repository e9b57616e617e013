// Test helper: run the built CLI (`bin/bijotel`, i.e. out/main/cli.js) as a child process.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { dbPath, FIXTURES, REPO_ROOT, SECRETS } from './fixtures'

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

/** The CLI on `--db path` with `args`, the environment as given plus `env`, and how long it took. */
export function timedRun(args: string[], path: string, env: Record<string, string> = {}) {
  const t = Date.now()
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 90_000,
  })
  return { ...r, ms: Date.now() - t }
}

/**
 * Each of `commands` on `path`, through the direct reader and through SQLite on a copy: each answers
 * within `boundMs`, and a refusal is one line with no stack trace (a hostile file's promise).
 */
export function expectPromptAnswers(path: string, commands: string[][], boundMs: number): void {
  for (const env of [{}, { BIJOTEL_READER: 'sqlite' }] as Record<string, string>[])
    for (const args of commands) {
      const r = timedRun(args, path, env)
      const said = `${args.join(' ')} ${JSON.stringify(env)}: exit ${r.status} after ${r.ms} ms: ${r.stderr}`
      expect(r.ms, said).toBeLessThan(boundMs)
      expect(r.stderr, said).not.toMatch(/\n\s+at /)
      if (r.status !== 0) expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
    }
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

/**
 * `bijotel report` of shared fixture `name` under the primary key, with the fixture's `clean`
 * replay files of `replaySeqs`, written to `out`: the report as parsed JSON (the run must succeed).
 */
export function fixtureReport(name: string, replaySeqs: number[], out: string): Record<string, unknown> {
  const replay = replaySeqs.flatMap((s) => ['--replay', `${s}=${join(FIXTURES, `clean.replay-${s}.txt`)}`])
  const r = bijotel([
    'report',
    '--db',
    dbPath(name),
    '--secret-hex',
    SECRETS['primary']!,
    ...replay,
    '-o',
    out,
  ])
  if (r.code !== 0) throw new Error(`bijotel report ${name} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>
}
