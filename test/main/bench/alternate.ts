// Before/after on a loaded machine (issue 36): when BENCH_BEFORE names another build's CLI (e.g. a
// checkout of main with its own `out/`), `bijotel verify` (default options) of that build and of
// this one run alternately, fresh processes, so both see the same minutes of load; medians of wall
// and CPU time (every thread, from BIJOTEL_TIMING). Both must print the same stdout.
import { spawnSync } from 'node:child_process'

interface Run {
  ms: number
  cpuMs: number
  stdout: string
}

function once(cli: string, args: string[]): Run {
  const t = performance.now()
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { ...process.env, BIJOTEL_TIMING: '1' },
    maxBuffer: 64 * 1024 * 1024,
  })
  const ms = performance.now() - t
  if (r.status !== 0)
    throw new Error(`${cli} ${args[0]}: exit ${r.status}: ${r.stderr.trim().split('\n').pop()}`)
  const cpu = /, cpu (\d+) ms/.exec(r.stderr)
  return { ms, cpuMs: cpu ? Number(cpu[1]) : NaN, stdout: r.stdout }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** The before/after line, or null when BENCH_BEFORE is not set. */
export function alternateBefore(after: string, args: string[], runs: number): string | null {
  const before = process.env['BENCH_BEFORE']
  if (!before) return null
  const b: Run[] = []
  const a: Run[] = []
  for (let i = 0; i < runs; i++) {
    b.push(once(before, args))
    a.push(once(after, args))
  }
  if (b.some((r) => r.stdout !== a[0]!.stdout) || a.some((r) => r.stdout !== a[0]!.stdout))
    throw new Error('before and after printed different verdicts')
  const f = (n: number): string => n.toFixed(0)
  const list = (rs: Run[]): string => rs.map((r) => f(r.ms)).join(', ')
  return (
    `verify before/after (${runs} each, alternating): wall median ${f(median(b.map((r) => r.ms)))} → ` +
    `${f(median(a.map((r) => r.ms)))} ms [before ${list(b)}; after ${list(a)}], CPU median ` +
    `${f(median(b.map((r) => r.cpuMs)))} → ${f(median(a.map((r) => r.cpuMs)))} ms`
  )
}
