// A replay batch is read in bounds (issues 29 and 34): a line with no end is not read to the end of
// its file before its one error (the batch stops once the line's end is not found within
// BATCH_LINE_SKIP_FACTOR bounds), and the --batch file itself is opened once through the one way a
// client-named file is opened, so a FIFO swapped in between a look and the open is refused at once.
// On the old code an endless line was read for ever, and the swap opened the FIFO by name: the
// command waited for a writer that never came.
import { spawn, type ChildProcess } from 'node:child_process'
import { linkSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { batchLinesFrom } from '../../../src/main/cli/commands/replay-batch'
import {
  BATCH_LINE_SKIP_FACTOR,
  isBad,
  jsonlLines,
  type BatchLine,
} from '../../../src/main/replay/batch-lines'
import { mulberry32 } from '../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'bijotel-batch-lines-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/**
 * A stream that does not end in any reasonable time: `prefix`, then chunks of `size` bytes of
 * `fill` up to 256 MiB (a cap only so that code reading it to its end fails instead of hanging).
 */
function endless(prefix: string, size: number, fill: number): Readable & { sent: () => number } {
  let sent = 0
  let first = true
  const r = new Readable({
    read() {
      if (first) {
        first = false
        this.push(Buffer.from(prefix))
        return
      }
      if (sent > 256 << 20) {
        this.push(null)
        return
      }
      sent += size
      this.push(Buffer.alloc(size, fill))
    },
  }) as Readable & { sent: () => number }
  r.sent = () => sent
  return r
}

describe('a line with no end', () => {
  const rnd = mulberry32(2934)
  for (let i = 0; i < 24; i++) {
    const max = 64 + Math.floor(rnd() * 4096)
    const chunk = 1 + Math.floor(rnd() * 8192)
    const good = Math.floor(rnd() * 4)
    const fill = [0x61, 0x20, 0x7b, 0x00, 0x0d][Math.floor(rnd() * 5)]!
    it(`ends the batch within its bounds (bound ${max}, chunks of ${chunk}, ${good} lines before)`, async () => {
      const prefix = Array.from({ length: good }, (_, k) => `{"seq": ${k + 1}, "output": "o"}\n`).join('')
      const stream = endless(prefix, chunk, fill)
      const got: BatchLine[] = []
      for await (const l of jsonlLines(stream, { baseDir: null, raw: false }, max)) got.push(l)
      expect(got).toHaveLength(good + 1)
      for (let k = 0; k < good; k++) expect(got[k]).toMatchObject({ line: k + 1, seq: k + 1 })
      const last = got[good]!
      expect(isBad(last) && last.error).toMatch(/the batch stops here, nothing after it was read/)
      expect(last.line).toBe(good + 1)
      // Read no further than the skip allows, and what the stream buffers ahead (its high-water mark).
      expect(stream.sent()).toBeLessThanOrEqual(max * (BATCH_LINE_SKIP_FACTOR + 1) + 4 * chunk + 65536)
      expect(stream.destroyed).toBe(true)
    }, 10_000)
  }
})

describe('the --batch file is opened once', () => {
  let swapper: ChildProcess | null = null
  afterAll(() => swapper?.kill())

  it('a FIFO swapped in for the file between a look and the open is refused at once, never waited on', async () => {
    const dir = mkdtempSync(join(root, 'swap-'))
    const batch = join(dir, 'batch.jsonl')
    const regular = join(dir, 'regular.jsonl')
    const fifo = join(dir, 'fifo')
    writeFileSync(regular, '{"seq": 1, "output": "o"}\n')
    spawn('mkfifo', [fifo]).on('error', () => undefined)
    await new Promise((r) => setTimeout(r, 200))
    linkSync(regular, join(dir, 'first'))
    renameSync(join(dir, 'first'), batch)
    // Flip the name between the regular file and the FIFO as fast as the shell can (hard links,
    // renamed into place: each flip is atomic).
    swapper = spawn('sh', [
      '-c',
      `cd "${dir}"; while :; do ln -f regular.jsonl a && mv -f a batch.jsonl; ln -f fifo b && mv -f b batch.jsonl; done`,
    ])
    const outcomes = { lines: 0, refused: 0 }
    for (let i = 0; i < 300; i++) {
      const t0 = Date.now()
      const attempt = (async () => {
        try {
          const lines = batchLinesFrom(batch, false)
          let n = 0
          for await (const l of lines) if (l) n++
          outcomes.lines += n > 0 ? 1 : 0
        } catch (e) {
          expect((e as Error).message).toMatch(/--batch .*(FIFO|replaced|not found)/)
          outcomes.refused++
        }
      })()
      const hung = new Promise<'hung'>((r) => setTimeout(() => r('hung'), 3000))
      expect(await Promise.race([attempt.then(() => 'ok' as const), hung]), `attempt ${i}`).toBe('ok')
      expect(Date.now() - t0).toBeLessThan(3000)
    }
    expect(outcomes.lines + outcomes.refused).toBe(300)
    // The flips did land on the FIFO (the case is exercised, not only the regular file).
    expect(outcomes.refused).toBeGreaterThan(0)
  }, 120_000)
})

describe('a field given twice in a batch line', () => {
  it('is a bad line naming the field, whichever value comes first', async () => {
    const rnd = mulberry32(8259)
    const fields = ['seq', 'output', 'name', 'raw']
    for (let i = 0; i < 40; i++) {
      const f = fields[Math.floor(rnd() * fields.length)]!
      const value = (k: number): string =>
        f === 'seq' ? String(k) : f === 'raw' ? 'false' : JSON.stringify(`v${k}`)
      const base: Record<string, string> = { seq: '1', output: '"o"' }
      const parts = Object.entries(base).map(([k, v]) => `"${k}":${v}`)
      parts.splice(Math.floor(rnd() * (parts.length + 1)), 0, `"${f}":${value(2)}`)
      if (f !== 'seq' && f !== 'output') parts.push(`"${f}":${value(3)}`)
      const line = `{${parts.join(',')}}\n`
      const got: BatchLine[] = []
      for await (const l of jsonlLines(Readable.from([Buffer.from(line)]), { baseDir: null, raw: false }))
        got.push(l)
      expect(got, line).toHaveLength(1)
      expect(isBad(got[0]!) && got[0].error, line).toMatch(new RegExp(`"${f}" appears twice`))
    }
  })
})
