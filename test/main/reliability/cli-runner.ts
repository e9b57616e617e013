// Running the built `bijotel` CLI as a child process under a time bound and a memory bound, and
// classifying how it ended: a verdict (exit 0/3), a clean error (exit 1/2 with exactly one
// `ERROR:` line on stderr), or a crash (signal, timeout, stack trace, anything else).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from '../testing/fixtures'

export const CLI_BIN = join(REPO_ROOT, 'bin', 'bijotel')
export const CLI_JS = join(REPO_ROOT, 'out', 'main', 'cli.js')

export function cliAvailable(): boolean {
  return existsSync(CLI_JS)
}

let prlimitPath: string | null | undefined
function prlimit(): string | null {
  if (prlimitPath === undefined) {
    prlimitPath = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? null
  }
  return prlimitPath
}

export interface CliLimits {
  /** Wall-clock bound; the child is killed (SIGKILL) after it. */
  timeoutMs?: number
  /** V8 old-space bound (--max-old-space-size). */
  heapMb?: number
  /** Address-space bound (RLIMIT_AS via prlimit, when available). */
  addressSpaceMb?: number
  env?: Record<string, string>
}

export interface CliRun {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  ms: number
  /** Whether the RLIMIT_AS bound was applied. */
  memoryBounded: boolean
}

export const DEFAULT_LIMITS = { timeoutMs: 30_000, heapMb: 512, addressSpaceMb: 4096 } as const

export function runCli(args: string[], limits: CliLimits = {}): CliRun {
  const timeout = limits.timeoutMs ?? DEFAULT_LIMITS.timeoutMs
  const node = [`--max-old-space-size=${limits.heapMb ?? DEFAULT_LIMITS.heapMb}`, CLI_BIN, ...args]
  // Under scripts/sanitize.sh the sanitizer runtimes must reach the child, and ASan's shadow memory
  // does not fit the address-space bound.
  const sanitize = process.env['BIJOTEL_SANITIZE'] === '1'
  const pl = sanitize ? null : prlimit()
  const [cmd, argv] = pl
    ? [
        pl,
        [
          `--as=${(limits.addressSpaceMb ?? DEFAULT_LIMITS.addressSpaceMb) * 1024 * 1024}`,
          process.execPath,
          ...node,
        ],
      ]
    : [process.execPath, node]
  const env: Record<string, string> = {}
  const passed = [
    'PATH',
    'HOME',
    'TMPDIR',
    'LANG',
    ...(sanitize ? ['LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS'] : []),
  ]
  for (const k of passed) if (process.env[k] !== undefined) env[k] = process.env[k]!
  const t0 = Date.now()
  const r = spawnSync(cmd, argv, {
    encoding: 'utf8',
    timeout,
    killSignal: 'SIGKILL',
    maxBuffer: 512 * 1024 * 1024,
    env: { ...env, ...limits.env },
    cwd: REPO_ROOT,
  })
  const ms = Date.now() - t0
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT'
  return {
    status: r.status,
    signal: r.signal,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    timedOut,
    ms,
    memoryBounded: pl !== null,
  }
}

export type Outcome = 'verdict' | 'clean_error' | 'crash'

const STACK = /(^\s+at\s)|node:internal|\n\s*\^\s*\n|FATAL ERROR|Segmentation fault|Aborted/m

/** How a run ended, and why it counts as a crash when it does. */
export function classify(r: CliRun, errorExits: readonly number[] = [1]): { outcome: Outcome; why?: string } {
  if (r.timedOut) return { outcome: 'crash', why: `timed out after ${r.ms} ms` }
  if (r.signal) return { outcome: 'crash', why: `killed by ${r.signal}` }
  if (STACK.test(r.stderr) || STACK.test(r.stdout))
    return { outcome: 'crash', why: `stack trace: ${r.stderr.slice(0, 300)}` }
  if (r.status === 0 || r.status === 3) {
    const lines = r.stderr.split('\n').filter((l) => l.length > 0)
    if (lines.length > 1) return { outcome: 'crash', why: `verdict with ${lines.length} stderr lines` }
    if (lines.length === 1 && !lines[0]!.startsWith('Chain BROKEN at seq=')) {
      return { outcome: 'crash', why: `unexpected stderr with a verdict: ${lines[0]}` }
    }
    return { outcome: 'verdict' }
  }
  if (r.status !== null && errorExits.includes(r.status)) {
    if (!/^ERROR: [^\n]+\n$/.test(r.stderr))
      return {
        outcome: 'crash',
        why: `exit ${r.status} but stderr is not one ERROR line: ${JSON.stringify(r.stderr.slice(0, 300))}`,
      }
    if (/internal error/.test(r.stderr))
      return { outcome: 'crash', why: `internal error: ${r.stderr.trim()}` }
    return { outcome: 'clean_error' }
  }
  return { outcome: 'crash', why: `exit ${String(r.status)}: ${r.stderr.slice(0, 300)}` }
}
