// The app's replay batch (checkReplayBatch) in bounded memory, as `replay --batch` is: before, the
// handler held every checkable line until the chain was read, answered an item per line and kept a
// check per line in the session — a body of short lines is millions of each (the CLI's 10^5 held
// lines took 260 MB). Now the lines are read twice (planned, then decided as read), the answer lists
// the first 20,000 items and counts the rest, and the session keeps as many checks.
// Generated batches of more lines than the bound (matching, mismatching, missing seqs, bad lines);
// the oracle is the CLI's streamed `replay --batch --json` of the same file: the items listed are
// its first items, the summary its summary, and the omitted counts the rest.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ReplayBatchResult, ReplayCheck } from '../../../src/shared/replay-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { scratchDir } from '../reliability/chainkit'
import { BIN, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const before = fingerprintFolder()
const scratch = scratchDir('replay-batch-bounded-app')
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})
beforeAll(() => ensureBuilt())
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const ctx = { transport: 'ipc' as const, trusted: true }
/** Items listed and checks kept per batch at most (the engine's MAX_KEPT_BATCH_CHECKS). */
const BOUND = 20_000

function batchText(seed: number, lines: number): string {
  const rnd = mulberry32(seed)
  const out: string[] = []
  for (let i = 0; i < lines; i++) {
    const r = rnd()
    if (r < 0.05) out.push(rnd() < 0.5 ? '{"seq":' : '{"seq":1,"outptu":"x"}')
    else if (r < 0.1) out.push(JSON.stringify({ seq: 100_000 + i, output: 'x' }))
    else
      out.push(JSON.stringify({ seq: 1 + Math.floor(rnd() * 40), output: rnd() < 0.5 ? 'hello world' : 'x' }))
  }
  return out.join('\n') + '\n'
}

describe('checkReplayBatch: more lines than the bound', () => {
  it.each([5])('lists the first lines as the CLI decides them, counts the rest (seed %i)', async (seed) => {
    const db = dbPath('clean')
    const lines = BOUND + 1500 + seed * 100
    const text = batchText(seed, lines)
    const file = join(scratch.dir, `batch-${seed}.jsonl`)
    writeFileSync(file, text)
    // Every line's item (spawnSync's default buffer would cut the output at 1 MB).
    const cli = spawnSync(process.execPath, [BIN, 'replay', '--db', db, '--batch', file, '--json'], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      timeout: 120_000,
    })
    expect(cli.stderr).toBe('')
    const want = cli.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const wantSummary = want.pop() as { summary: Record<string, number> }
    expect(want).toHaveLength(lines)

    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(db)
    const r = (await h.checkReplayBatch({ jsonl: text }, ctx)) as ReplayBatchResult
    expect(r.items.length).toBeLessThanOrEqual(BOUND)
    expect(r.items.length + (r.items_omitted ?? 0)).toBe(lines)
    expect(r.summary.lines).toBe(lines)
    expect({ lines: r.summary.lines, ...r.summary.counts }).toEqual(wantSummary.summary)
    expect(r.items.map((i) => [i.line, i.seq, i.status])).toEqual(
      want.slice(0, r.items.length).map((o) => [o['line'], o['seq'], o['status']]),
    )
    const checked = want.filter((o) => o['status'] !== 'bad_line' && o['status'] !== 'seq_missing').length
    const kept = (await h.listReplayChecks(undefined, ctx)) as ReplayCheck[]
    expect(kept.length).toBeLessThanOrEqual(BOUND)
    expect(kept.length + (r.checks_not_kept ?? 0)).toBe(checked)
  })
})
