// `npm run bench`: speed of the CLI on 100k- and 1M-row chains written by the project's writer,
// against a naive baseline loop and the hashing floor measured in the same run.
//
// Chains are generated once (with `bijotel demo`) under BENCH_DIR (default: $TMPDIR/bijotel-bench)
// and reused. Sizes: BENCH_ROWS=100000,1000000 by default. BENCH_ONLY=app-open measures only the
// app's open (./app-open.ts) beside the one-stream SHA-256 of the file; BENCH_ONLY=recovery only
// verify with and without the recovery search (BENCH_RUNS alternating pairs each, default 5);
// BENCH_FOCUS=verify only issue 36's verify goal line.
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { createHash, createHmac, hash as oneShotHash } from 'node:crypto'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { withDirect } from '../../../src/main/chain/direct/open'
import { hashFileParallel } from '../../../src/main/chain/snapshot'
import { DirectSource } from '../../../src/main/chain/source/direct-source'
import { runIntegrity } from '../../../src/main/integrity/analyze'
import { appOpenChild, appOpenLine } from './app-open'
import { hmacWorkMs, medianOneStream, naivePython, oneStreamFileSha, verifyFloor } from './floor'
import { alternateBefore } from './alternate'
import {
  CLI,
  copyPair,
  cli,
  cpuFrom,
  fmt,
  type Measure,
  recoveryPair,
  ROOT,
  rssFrom,
  run,
  SECRET,
  SQLITE,
} from './measure'

function ensureChain(dir: string, rows: number): string {
  const path = join(dir, `chain-${rows}.db`)
  if (existsSync(path)) return path
  process.stdout.write(`generating ${fmt(rows)} rows with bijotel demo… `)
  const r = run(['demo', '--db', path, '--count', String(rows), '--secret-hex', SECRET, '--seed', '7'])
  if (r.code !== 0) throw new Error(`demo failed: ${r.stderr.trim()}`)
  console.log(`${fmt(r.ms / 1000, 1)} s`)
  return path
}

/** The naive verifier: one thread, per-row createHash/createHmac, plain iterate. */
function naiveVerify(path: string): Measure {
  const key = Buffer.from(SECRET, 'hex')
  const t = performance.now()
  const db = new Database(path, { readonly: true })
  let prev = '0'.repeat(64)
  let ok = true
  let rows = 0
  for (const r of db
    .prepare('SELECT canonical_body, canonical_hash, prev_hash, hmac_hash FROM chain ORDER BY seq')
    .iterate() as IterableIterator<{
    canonical_body: Buffer
    canonical_hash: string
    prev_hash: string
    hmac_hash: string
  }>) {
    const ch = createHash('sha256').update(r.canonical_body).digest('hex')
    const mac = createHmac('sha256', key)
      .update(r.prev_hash + r.canonical_hash)
      .digest('hex')
    ok = ok && ch === r.canonical_hash && r.prev_hash === prev && mac === r.hmac_hash
    prev = r.hmac_hash
    rows++
  }
  db.close()
  return {
    label: 'naive baseline (1 thread, createHash+createHmac)',
    ms: performance.now() - t,
    rows,
    rssMb: null,
    note: ok ? 'valid' : 'INVALID',
  }
}

/**
 * Hashing floors, reading excluded from the time: `crypto.hash` over each body (what a JavaScript
 * verifier cannot go below: each call also pays OpenSSL's per-digest set-up), and over the same
 * bytes in 20,000-body runs (SHA-256's own speed on one core).
 */
function hashingFloor(path: string): { ms: number; bulkMs: number; bytes: number } {
  const db = new Database(path, { readonly: true })
  const stmt = db
    .prepare('SELECT seq, canonical_body FROM chain WHERE seq > ? ORDER BY seq LIMIT 20000')
    .raw(true)
  let after = -1
  let ms = 0
  let bulkMs = 0
  let bytes = 0
  for (;;) {
    const batch = stmt.all(after) as [number, Buffer][]
    if (batch.length === 0) break
    let t = performance.now()
    for (const [, body] of batch) oneShotHash('sha256', body, 'hex')
    ms += performance.now() - t
    const run = Buffer.concat(batch.map(([, body]) => body))
    t = performance.now()
    oneShotHash('sha256', run, 'hex')
    bulkMs += performance.now() - t
    bytes += run.length
    after = batch[batch.length - 1]![0]
  }
  db.close()
  return { ms, bulkMs, bytes }
}

/**
 * SHA-256 of the whole file as verify's `Evidence:` line states it (issue 25), computed as verify
 * computes it (hashFileParallel: the addon on libuv's thread pool, one stream, beside verify's own
 * workers; a worker thread with node:crypto without the addon).
 */
async function evidenceHash(path: string, size: number): Promise<number> {
  const t = performance.now()
  await hashFileParallel(path, size, () => {})
  return performance.now() - t
}

/**
 * The window as the app and `bijotel serve` run it: the chain already open, the code warm (one
 * untimed run first), no process start-up. Median of five runs.
 */
async function warmWindow(path: string, window: number): Promise<Measure> {
  const times: number[] = []
  const done = await withDirect(path, async (chain) => {
    const source = DirectSource.of(chain)
    try {
      await runIntegrity(source, { window })
      for (let i = 0; i < 5; i++) {
        const t = performance.now()
        await runIntegrity(source, { window })
        times.push(performance.now() - t)
      }
    } finally {
      source.close()
    }
    return true
  })
  if (!done) throw new Error('the direct reader declined the bench chain')
  times.sort((a, b) => a - b)
  return {
    label: `integrity --window ${window}, in-process (app/serve)`,
    ms: times[2]!,
    rows: window,
    rssMb: null,
    note: `median of 5, warm; min ${fmt(times[0]!)} ms`,
  }
}

/**
 * Node's own start-up here (`node -e 0`, median of five): the floor under every fresh CLI process,
 * measured with this environment and without NODE_EXTRA_CA_CERTS (Node reads that CA file at every
 * start; the packaged CLI's launcher drops it, as the CLI makes no TLS connection).
 */
function nodeStartup(): { line: string; ms: number } {
  const median = (env: NodeJS.ProcessEnv): number => {
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      spawnSync(process.execPath, ['-e', '0'], { env })
      times.push(performance.now() - t)
    }
    return times.sort((a, b) => a - b)[2]!
  }
  const plain = { ...process.env }
  delete plain['NODE_EXTRA_CA_CERTS']
  const ms = median(process.env)
  const line = `node -e 0: ${fmt(median(plain))} ms`
  return {
    ms,
    line: process.env['NODE_EXTRA_CA_CERTS']
      ? `${line}; with this environment's NODE_EXTRA_CA_CERTS ${fmt(ms)} ms`
      : line,
  }
}

/**
 * Issue 36's start-up goal: \`integrity --window 10000\` (its text, as a cron job runs it) in a
 * fresh process against \`node -e 0\` with the same environment, alternating, medians of seven.
 */
function windowStartup(path: string): string {
  const node: number[] = []
  const win: number[] = []
  for (let i = 0; i < 7; i++) {
    let t = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    node.push(performance.now() - t)
    t = performance.now()
    const r = spawnSync(process.execPath, [CLI, 'integrity', '--db', path, '--window', '10000'])
    win.push(performance.now() - t)
    if (r.status !== 0 && r.status !== 1) throw new Error(`integrity --window 10000: exit ${r.status}`)
  }
  const med = (xs: number[]): number => xs.sort((a, b) => a - b)[3]!
  return (
    `integrity --window 10000 (text), fresh process: ${fmt(med(win))} ms against node -e 0 ${fmt(med(node))} ms ` +
    `= ${fmt(med(win) / med(node), 2)}x (goal <= 2x; alternating, medians of 7)`
  )
}

/**
 * A fresh CLI process running `args`; with `runs` > 1, the median of that many (a run of a few tens
 * of milliseconds drifts by more than its own differences), its range in the note.
 */
/**
 * `bijotel replay --batch` with lines spread over the chain (issue 37): the chain is read once,
 * whatever the verdicts (exit 3 when some mismatch is expected here). 10,000 lines without a key
 * (the replay check alone) and with one (each named row verified as `replay --seq` verifies it,
 * inside the same pass).
 */
function replayBatch(dir: string, path: string, rows: number, keyed: boolean, lines: number): Measure {
  const file = join(dir, `replay-batch-${rows}-${lines}.jsonl`)
  if (!existsSync(file)) {
    const out: string[] = []
    for (let k = 0; k < lines; k++) {
      const seq = 1 + Math.floor((k * rows) / lines) + (k % 7)
      out.push(JSON.stringify({ seq: Math.min(seq, rows), output: `replayed output ${k}` }))
    }
    writeFileSync(file, out.join('\n') + '\n')
  }
  const args = ['replay', '--db', path, '--batch', file, '--json', ...(keyed ? ['--secret-hex', SECRET] : [])]
  const r = run(args)
  if (r.code !== 0 && r.code !== 3)
    throw new Error(`replay --batch: exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`)
  const summary = JSON.parse(r.stdout.trimEnd().split('\n').pop()!) as { summary: { lines: number } }
  if (summary.summary.lines !== lines)
    throw new Error(`replay --batch answered ${summary.summary.lines} lines`)
  const open = /reader (\S+), open (\d+) ms/.exec(r.stderr)
  return {
    label: `bijotel replay --batch (${fmt(lines)} lines${keyed ? ', rows verified' : ''})`,
    ms: r.ms,
    rows: lines,
    rssMb: rssFrom(r.stderr),
    cpuMs: cpuFrom(r.stderr),
    note:
      `${fmt(lines / (r.ms / 1000))} replays/s` +
      (open ? `; ${open[1]} reader, open ${fmt(Number(open[2]))} ms` : ''),
  }
}

/**
 * BENCH_FOCUS=verify: only issue 36's goal line (verify default against the floors, the naive loops
 * and, with BENCH_BEFORE, another build alternately), for a machine too loaded for the whole bench.
 */
async function focusVerify(path: string, rows: number, size: number): Promise<void> {
  const floor = hashingFloor(path)
  const naive = naiveVerify(path)
  const python = naivePython(path, SECRET)
  const stating = await evidenceHash(path, size)
  const runs = Number(process.env['BENCH_RUNS'] ?? 5)
  const args = ['verify', '--db', path, '--secret-hex', SECRET]
  // The floor's one-stream hash is measured before each verify run, so both see the same minutes,
  // and the median of each is compared.
  const streams: number[] = []
  const all = Array.from({ length: runs }, () => {
    streams.push(medianOneStream(path, 1).ms)
    return cli('bijotel verify', args, rows)
  })
  const direct = [...all].sort((a, b) => a.ms - b.ms)[Math.floor(runs / 2)]!
  const oneStreamMs = [...streams].sort((a, b) => a - b)[Math.floor(runs / 2)]!
  const floor36 = verifyFloor(oneStreamMs, floor.bulkMs, hmacWorkMs(rows), cpus().length)
  console.log(`== ${fmt(rows)} rows, ${fmt(size / 1e6, 0)} MB file (BENCH_FOCUS=verify)`)
  console.log(`   evidence hash as verify runs it (addon, thread pool): ${fmt(stating)} ms`)
  console.log(`   ${floor36.line} (one-stream hash: median of ${streams.map((m) => fmt(m)).join(', ')} ms)`)
  console.log(
    `   verify (default, median of ${runs}: ${all.map((m) => fmt(m.ms)).join(', ')} ms; CPU ${fmt(direct.cpuMs ?? NaN)} ms) ` +
      `${fmt(direct.ms)} ms = ${fmt(direct.ms / floor36.ms, 2)}x the floor (goal <= 1.25x), ` +
      `${fmt(naive.ms / direct.ms, 2)}x the naive Node loop (${fmt(naive.ms)} ms; goal >= 8x)` +
      (python
        ? `, ${fmt(python.ms / direct.ms, 2)}x the naive Python loop (${fmt(python.ms)} ms; goal >= 2x at 200k)`
        : ''),
  )
  const ab = alternateBefore(CLI, args, runs)
  if (ab) console.log(`   ${ab}`)
  console.log()
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'out', 'main', 'cli.js'))) throw new Error('build first: npm run build')
  const dir = process.env['BENCH_DIR'] ?? join(tmpdir(), 'bijotel-bench')
  mkdirSync(dir, { recursive: true })
  const sizes = (process.env['BENCH_ROWS'] ?? '100000,1000000').split(',').map(Number)
  console.log(
    `BIJOTEL Auditor benchmark — Node ${process.versions.node} on ${cpus().length} cores; chains in ${dir}`,
  )
  console.log(`Node start-up under every fresh CLI process (median of 5): ${nodeStartup().line}\n`)
  const only = process.env['BENCH_ONLY']
  const runs = Number(process.env['BENCH_RUNS'] ?? 5) || 5
  for (const rows of sizes) {
    const path = ensureChain(dir, rows)
    if (only === 'recovery') {
      const pair = recoveryPair(path, rows, runs)
      console.log(`${fmt(rows)} rows (${fmt(statSync(path).size / 2 ** 20)} MB):`)
      for (const m of [pair.off, pair.on])
        console.log(
          `   ${m.label.padEnd(50)} ${fmt(m.ms).padStart(8)} ms  cpu ${fmt(m.cpuMs ?? NaN)} ms  (${m.note})`,
        )
      console.log(`   ${pair.line}\n`)
      continue
    }
    const size = statSync(path).size
    if (process.env['BENCH_FOCUS'] === 'verify') {
      await focusVerify(path, rows, size)
      continue
    }
    if (process.env['BENCH_ONLY'] === 'app-open') {
      const sha = oneStreamFileSha(path)
      console.log(
        `== ${fmt(rows)} rows, ${fmt(size / 1e6, 0)} MB file\n   ${appOpenLine(__filename, path, sha.ms)}\n`,
      )
      continue
    }
    const floor = hashingFloor(path)
    const naive = naiveVerify(path)
    const recovery = recoveryPair(path, rows)
    const stating = await evidenceHash(path, size)
    const oneStream = medianOneStream(path, 3)
    const floor36 = verifyFloor(oneStream.ms, floor.bulkMs, hmacWorkMs(rows), cpus().length)
    const python = naivePython(path, SECRET)
    const copied = copyPair(path, rows)
    const results: Measure[] = [
      naive,
      recovery.on,
      recovery.off,
      // Without the native row prover (not built, another CPU, or turned off), for comparison.
      cli(
        'bijotel verify --no-recover (BIJOTEL_NATIVE=0)',
        ['verify', '--db', path, '--secret-hex', SECRET, '--no-recover'],
        rows,
        { BIJOTEL_NATIVE: '0' },
      ),
      cli('bijotel integrity --all', ['integrity', '--db', path, '--all', '--json'], rows),
      cli(
        'bijotel integrity --window 10000',
        ['integrity', '--db', path, '--window', '10000', '--json'],
        10000,
        {},
        7,
      ),
      await warmWindow(path, 10000),
      // The fallback path (SQLite on a verified private copy), for comparison.
      copied.copy,
      cli(
        'bijotel integrity --all (BIJOTEL_READER=sqlite)',
        ['integrity', '--db', path, '--all', '--json'],
        rows,
        SQLITE,
      ),
      replayBatch(dir, path, rows, false, 10_000),
      replayBatch(dir, path, rows, true, 10_000),
    ]
    console.log(
      `== ${fmt(rows)} rows, ${fmt(size / 1e6, 0)} MB file, ${fmt(floor.bytes / 1e6, 0)} MB of bodies`,
    )
    const rate = (ms: number): string => `${fmt(floor.bytes / 1e6 / (ms / 1000), 0)} MB/s`
    console.log(
      `   hashing floor (crypto.hash per body, 1 thread): ${fmt(floor.ms)} ms (${rate(floor.ms)}); ` +
        `bulk (SHA-256 alone, 1 thread): ${fmt(floor.bulkMs)} ms (${rate(floor.bulkMs)})`,
    )
    console.log(
      `   evidence hash (SHA-256 of the whole file, the \`Evidence:\` line's, one stream as verify runs it): ${fmt(stating)} ms ` +
        `(${fmt(size / 1e6 / (stating / 1000), 0)} MB/s; verify runs it beside its workers)`,
    )
    for (const m of results) {
      // Ratios only compare runs over the same rows (a 10k window is not the chain's work).
      const whole = m.rows === rows
      const ratio = whole ? `${fmt(naive.ms / m.ms, 2)}x` : '-'
      const vsFloor = whole ? `${fmt(m.ms / floor.ms, 2)}x` : '-'
      const vsBulk = whole ? `${fmt(m.ms / floor.bulkMs, 2)}x` : '-'
      console.log(
        `   ${m.label.padEnd(50)} ${fmt(m.ms).padStart(8)} ms  ${fmt(m.rows / (m.ms / 1000)).padStart(11)} rows/s` +
          `  ${ratio.padStart(7)} baseline  ${vsFloor.padStart(7)} floor  ${vsBulk.padStart(7)} bulk` +
          (m.rssMb !== null ? `  peak RSS ${m.rssMb} MB` : '') +
          (m.note ? `  (${m.note})` : ''),
      )
    }
    console.log(`   ${recovery.line}`)
    // Issue 36's goals, each a ratio of this run.
    console.log(`   ${floor36.line}`)
    const direct = recovery.on
    console.log(
      `   verify (default) ${fmt(direct.ms)} ms = ${fmt(direct.ms / floor36.ms, 2)}x the floor (goal <= 1.25x), ` +
        `${fmt(naive.ms / direct.ms, 2)}x the naive Node loop (goal >= 8x)` +
        (python
          ? `, ${fmt(python.ms / direct.ms, 2)}x the naive Python loop (${fmt(python.ms)} ms, ${python.note}; goal >= 2x at 200k)`
          : ', naive Python loop: python3 not found'),
    )
    console.log(`   ${copied.line}`)
    console.log(`   ${windowStartup(path)}`)
    console.log(`   ${appOpenLine(__filename, path, oneStream.ms)}`)
    console.log()
  }
}

const child = process.argv[2] === '--app-open' ? process.argv[3] : undefined
;(child !== undefined ? appOpenChild(child) : main()).catch((e: unknown) => {
  console.error(`bench: ${(e as Error).message}`)
  process.exitCode = 1
})
