// replay --batch reads its batch twice (a plan of the seqs, then the lines decided): the batch file is
// opened once and both reads go through that descriptor, a folder is listed once, and the plan read
// opens no file a line names — each such file is opened once, by the read that decides its line, and
// a failure there is reported then, once. Generated batches, replaced at their path between the reads.
import { spawnSync } from 'node:child_process'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { batchReads } from '../../../../src/main/cli/commands/replay-batch'
import { isBad, type BatchLine } from '../../../../src/main/replay/batch-lines'
import { dbPath } from '../../testing/fixtures'
import { tempDir } from '../../server/testkit'
import { mulberry32 } from '../../testing/prng'
import { BIN, ensureBuilt } from '../../replay/testcli'

const tmp = tempDir('bijotel-batch-reads-')
afterAll(() => tmp.cleanup())
beforeAll(() => ensureBuilt())

interface Case {
  dir: string
  batch: string
  /** Line numbers whose named file does not exist or is not text: bad only when read. */
  namedBad: Set<number>
  lines: number
}

/** A batch of `n` lines: inline outputs, present files, missing files, binary files, prompt files. */
function makeCase(seed: number, n: number): Case {
  const r = mulberry32(seed)
  const dir = join(tmp.dir, `case-${seed}`)
  mkdirSync(dir)
  const namedBad = new Set<number>()
  const out: string[] = []
  for (let line = 1; line <= n; line++) {
    const seq = 1 + Math.floor(r() * 10)
    const kind = Math.floor(r() * 5)
    if (kind === 0) out.push(JSON.stringify({ seq, output: `text ${line}` }))
    else if (kind === 1) {
      writeFileSync(join(dir, `o${line}.txt`), `file ${line}\n`)
      out.push(JSON.stringify({ seq, output_file: `o${line}.txt` }))
    } else if (kind === 2) {
      namedBad.add(line)
      out.push(JSON.stringify({ seq, output_file: `absent${line}.txt` }))
    } else if (kind === 3) {
      namedBad.add(line)
      writeFileSync(join(dir, `b${line}.bin`), Buffer.from([0, 0xff, 0xfe, 0, 1]))
      out.push(JSON.stringify({ seq, output_file: `b${line}.bin` }))
    } else {
      namedBad.add(line)
      out.push(JSON.stringify({ seq, output: `text ${line}`, prompt_file: `absent-prompt${line}.txt` }))
    }
  }
  const batch = join(dir, 'batch.jsonl')
  writeFileSync(batch, out.join('\n') + '\n')
  return { dir, batch, namedBad, lines: n }
}

async function all(lines: AsyncIterable<BatchLine> | Iterable<BatchLine>): Promise<BatchLine[]> {
  const got: BatchLine[] = []
  for await (const l of lines) got.push(l)
  return got
}

describe('replay --batch: one open of the batch, none of a named file before its line is decided', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: the plan opens no named file; the second read is of the file the first read`, async () => {
      const c = makeCase(seed, 40)
      const reads = batchReads(c.batch, false)
      try {
        const plan = await all(reads.read(true))
        // The plan read never fails a line on a file it names: it did not open one.
        expect(plan.filter(isBad)).toEqual([])
        expect(plan.map((l) => l.line)).toEqual(Array.from({ length: c.lines }, (_, i) => i + 1))
        // The path now names another batch: the decide read is still of the one opened.
        const other = join(c.dir, 'other.jsonl')
        writeFileSync(other, JSON.stringify({ seq: 99, output: 'swapped' }) + '\n')
        renameSync(other, c.batch)
        const decide = await all(reads.read(false))
        expect(decide.map((l) => [l.line, l.seq])).toEqual(plan.map((l) => [l.line, l.seq]))
        const bad = decide.filter(isBad)
        expect(new Set(bad.map((l) => l.line))).toEqual(c.namedBad)
        for (const l of bad) expect(l.named).toBe(true)
      } finally {
        reads.close()
      }
    })
  }

  it('a folder is listed once: a file put in it between the reads is not read', async () => {
    const dir = join(tmp.dir, 'folder')
    mkdirSync(dir)
    for (const s of [1, 2, 3]) writeFileSync(join(dir, `replay-${s}.txt`), `out ${s}`)
    writeFileSync(join(dir, 'replay-4.txt'), Buffer.from([0, 0xff, 0]))
    const reads = batchReads(dir, false)
    try {
      const plan = await all(reads.read(true))
      expect(plan.filter(isBad)).toEqual([])
      writeFileSync(join(dir, 'replay-5.txt'), 'late')
      const decide = await all(reads.read(false))
      expect(decide.map((l) => l.seq)).toEqual([1, 2, 3, 4])
      expect(decide.filter(isBad).map((l) => [l.seq, l.named])).toEqual([[4, true]])
    } finally {
      reads.close()
    }
  })

  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: the CLI reports every line once, a named file's failure as a bad line`, () => {
      const c = makeCase(seed, 30)
      const res = spawnSync(
        process.execPath,
        [BIN, 'replay', '--db', dbPath('clean'), '--batch', c.batch, '--json'],
        {
          encoding: 'utf8',
          env: { ...process.env, BIJOTEL_HMAC_SECRET: '' },
          timeout: 60_000,
        },
      )
      const items = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      const summary = items.pop()!
      const byLine = new Map<number, Record<string, unknown>>()
      for (const it of items) {
        expect(byLine.has(it['line'] as number)).toBe(false)
        byLine.set(it['line'] as number, it)
      }
      expect([...byLine.keys()].sort((a, b) => a - b)).toEqual(
        Array.from({ length: c.lines }, (_, i) => i + 1),
      )
      for (const line of c.namedBad) expect(byLine.get(line)!['status']).toBe('bad_line')
      expect(summary).toMatchObject({ summary: { lines: c.lines, bad_line: c.namedBad.size } })
    })
  }
})
