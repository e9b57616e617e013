// What the bench measures with: the CLI in fresh processes (BIJOTEL_TIMING for CPU and RSS), the
// median of several runs, and pairs of commands run alternately so both see the same minutes of this
// VM's drifting load.
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'

export const SECRET = '6d7f8e9a0b1c2d3e4f5061728394a5b6c7d8e9f00112233445566778899aabbc'
// Built to out/main/bench/bench.js (test/main/bench/vite.config.ts): the repository is three up.
export const ROOT = resolve(__dirname, '../../..')
export const CLI = join(ROOT, 'bin', 'bijotel')
export const SQLITE = { BIJOTEL_READER: 'sqlite' }

export interface Measure {
  label: string
  ms: number
  rows: number
  rssMb: number | null
  /** CPU of every thread of the CLI process, when it printed it (BIJOTEL_TIMING). */
  cpuMs?: number | null
  note?: string
}

/** The middle element of `xs` ordered by `key` (the upper middle of an even count): a run, not a mean. */
export function middle<T>(xs: readonly T[], key: (x: T) => number): T {
  return [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

export function run(
  args: string[],
  env: Record<string, string> = {},
): { ms: number; code: number | null; stdout: string; stderr: string } {
  const t = performance.now()
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, BIJOTEL_TIMING: '1', ...env },
    maxBuffer: 64 * 1024 * 1024,
  })
  return { ms: performance.now() - t, code: r.status, stdout: r.stdout, stderr: r.stderr }
}

export function cpuFrom(stderr: string): number | null {
  const m = /, cpu (\d+) ms/.exec(stderr)
  return m ? Number(m[1]) : null
}

export function rssFrom(stderr: string): number | null {
  const m = /maxrss (\d+) MB/.exec(stderr)
  return m ? Number(m[1]) : null
}

export function cli(
  label: string,
  args: string[],
  rows: number,
  env: Record<string, string> = {},
  runs = 1,
): Measure {
  const all = Array.from({ length: runs }, () => {
    const r = run(args, env)
    if (r.code !== 0 && r.code !== 1)
      throw new Error(`${label}: exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`)
    return r
  }).sort((a, b) => a.ms - b.ms)
  const r = all[Math.floor(runs / 2)]!
  const open = /reader (\S+), open (\d+) ms/.exec(r.stderr)
  const prover = /prover (\S+)/.exec(r.stderr)
  const spread = runs > 1 ? `median of ${runs} processes, ${fmt(all[0]!.ms)}–${fmt(all.at(-1)!.ms)} ms; ` : ''
  return {
    label,
    ms: r.ms,
    rows,
    rssMb: rssFrom(r.stderr),
    cpuMs: cpuFrom(r.stderr),
    note:
      spread +
      (open ? `${open[1]} reader, open ${fmt(Number(open[2]))} ms` : '') +
      (prover ? `, ${prover[1]} prover` : ''),
  }
}

/**
 * verify with and without the search for recoverable rows, in alternating fresh processes (this
 * VM's speed drifts within minutes): the median of each, and what recovery adds.
 */
export function recoveryPair(
  path: string,
  rows: number,
  runs = 5,
): { off: Measure; on: Measure; line: string } {
  const args = ['verify', '--db', path, '--secret-hex', SECRET]
  const offs: Measure[] = []
  const ons: Measure[] = []
  for (let i = 0; i < runs; i++) {
    offs.push(cli('bijotel verify --no-recover', [...args, '--no-recover'], rows))
    ons.push(cli('bijotel verify (searching the files, the default)', args, rows))
  }
  const off = middle(offs, (m) => m.ms)
  const on = middle(ons, (m) => m.ms)
  const note = `median of ${runs}, alternating`
  off.note = `${note}; ${off.note ?? ''}`
  on.note = `${note}; ${on.note ?? ''}`
  // CPU time as well: on this shared VM wall time drifts by more than recovery costs.
  const cpu = (ms: Measure[]): number => middle(ms, (m) => m.cpuMs ?? NaN).cpuMs ?? NaN
  const pct = (a: number, b: number): string => `${fmt((100 * (a - b)) / b, 1)}%`
  const line =
    `recovery adds ${fmt(on.ms - off.ms)} ms wall to verify (${pct(on.ms, off.ms)}), ` +
    `${fmt(cpu(ons) - cpu(offs))} ms CPU (${pct(cpu(ons), cpu(offs))}; medians; target < 25%)`
  return { off, on, line }
}

/**
 * verify through the SQLite copy against the direct path, both `--no-recover`, in alternating fresh
 * processes (issue 36's "within 3x"): the median of each and the median of the pairs' ratios. One
 * copy run measured minutes away from the direct runs swung the ratio by half a point on this VM.
 */
export function copyPair(path: string, rows: number, runs = 3): { copy: Measure; line: string } {
  const args = ['verify', '--db', path, '--secret-hex', SECRET, '--no-recover']
  const pairs: { direct: Measure; copy: Measure }[] = []
  for (let i = 0; i < runs; i++)
    pairs.push({
      direct: cli('bijotel verify --no-recover', args, rows),
      copy: cli('bijotel verify --no-recover (BIJOTEL_READER=sqlite)', args, rows, SQLITE),
    })
  const copy = middle(
    pairs.map((p) => p.copy),
    (m) => m.ms,
  )
  const direct = middle(
    pairs.map((p) => p.direct),
    (m) => m.ms,
  )
  const ratios = pairs.map((p) => p.copy.ms / p.direct.ms)
  copy.note = `median of ${runs}, alternating with the direct path; ${copy.note ?? ''}`
  const line =
    `verify through the SQLite copy ${fmt(copy.ms)} ms against the direct path ${fmt(direct.ms)} ms ` +
    `(--no-recover both, ${runs} alternating pairs): ${fmt(
      middle(ratios, (r) => r),
      2,
    )}x, the median of the pairs ` +
    `[${ratios.map((r) => fmt(r, 2)).join(', ')}] (goal <= 3x)`
  return { copy, line }
}
