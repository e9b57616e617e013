// `replay --batch` of 10^5 lines over a chain sealed under two keys (the shared rotation fixture:
// seq 1-160 key #1, 161-240 key #2), read with both keys: memory bounded whatever the line count,
// and each line's row check worded under the key that proves its row, as `replay --seq` words it.
// On the old code every checkable line was held until the chain was read (10^5 lines: 260 MB,
// 3·10^5: 550 MB): under a 40 MB heap the run aborted out of memory (a V8 report, no answer). Now
// the batch is read twice (planBatch, then decideBatch): the lines are decided as they are read.
import { spawnSync } from 'node:child_process'
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Rng, scratchDir } from '../reliability/chainkit'
import { bijotel, BIN, ensureBuilt } from '../testing/cli'
import { dbPath, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('replay-batch-bounded')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const KEYS = ['--secret-hex', SECRETS['primary']!, '--secret-hex', SECRETS['rotated']!]

describe('a replay batch of 10^5 lines under rotated keys', () => {
  it('runs in a 40 MB heap; every line worded as replay --seq words its row', () => {
    const db = dbPath('rotation')
    const rnd = new Rng(370037)
    const batch = join(scratch.dir, 'batch.jsonl')
    const seqs: number[] = []
    const text: string[] = []
    for (let i = 0; i < 100_000; i++) {
      const r = rnd.next()
      const seq =
        r < 0.4 ? 1 + Math.floor(rnd.next() * 240) : r < 0.9 ? 150 + Math.floor(rnd.next() * 20) : 241
      seqs.push(seq)
      text.push(JSON.stringify({ seq, output: rnd.next() < 0.5 ? 'x' : 'y' }))
    }
    writeFileSync(batch, text.join('\n') + '\n')
    const outPath = join(scratch.dir, 'out.jsonl')
    const fd = openSync(outPath, 'w')
    let r
    try {
      r = spawnSync(
        process.execPath,
        ['--max-old-space-size=40', BIN, 'replay', '--db', db, '--batch', batch, ...KEYS, '--json'],
        {
          stdio: ['ignore', fd, 'pipe'],
          encoding: 'utf8',
          timeout: 240_000,
        },
      )
    } finally {
      closeSync(fd)
    }
    expect(r.stderr).toBe('')
    expect(r.status).toBe(3)
    const items = readFileSync(outPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const summary = items.pop() as { summary: { lines: number; seq_missing: number } }
    expect(summary.summary.lines).toBe(100_000)
    expect(items.map((o) => o['seq'])).toEqual(seqs)
    // Each seq's words, as the single-entry command gives them: key #1 to 160, key #2 from 161.
    const words = new Map<number, string>()
    for (const o of items) {
      const seq = o['seq'] as number
      if (seq === 241) {
        expect(o['status']).toBe('seq_missing')
        continue
      }
      const detail = o['row_detail'] as string
      expect(detail, `seq ${seq}`).toMatch(
        seq <= 160 ? /HMAC reproduced by key #1$/ : /HMAC reproduced by key #2$/,
      )
      const seen = words.get(seq)
      if (seen === undefined) words.set(seq, detail)
      else expect(detail, `seq ${seq}`).toBe(seen)
    }
    for (const seq of [1, 2, 159, 160, 161, 162, 169, 240]) {
      const one = bijotel(['replay', '--db', db, '--seq', String(seq), '--output', 'x', ...KEYS, '--json'])
      expect(JSON.parse(one.stdout).row_detail, `seq ${seq}`).toBe(words.get(seq))
    }
  }, 300_000)
})
