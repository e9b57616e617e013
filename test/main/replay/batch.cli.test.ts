// `bijotel replay --batch` against hostile input: files a line names that are FIFOs, folders,
// links to FIFOs, missing, binary or not UTF-8; lines over the bound; argument misuse; stdin. Each
// bad line is reported with its reason and the batch goes on; nothing hangs, nothing is written to
// the evidence, no stack trace.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonlLines, type BatchLine } from '../../../src/main/replay/batch-lines'
import { dbPath, fingerprintFolder } from '../testing/fixtures'
import { tempDir } from '../server/testkit'
import { BIN, bijotel, ensureBuilt } from './testcli'

const before = fingerprintFolder()
const tmp = tempDir('bijotel-batch-cli-')
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex')

beforeAll(() => ensureBuilt())
afterAll(() => {
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

function objects(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('files a line names', () => {
  it('FIFO, folder, link to a FIFO, missing, not UTF-8: bad lines with reasons, the rest checked (NUL is text)', () => {
    const d = join(tmp.dir, 'hostile')
    mkdirSync(d)
    expect(spawnSync('mkfifo', [join(d, 'fifo')]).status).toBe(0)
    symlinkSync(join(d, 'fifo'), join(d, 'link-to-fifo'))
    mkdirSync(join(d, 'folder'))
    writeFileSync(join(d, 'binary.txt'), Buffer.from([0x61, 0, 0x62]))
    writeFileSync(join(d, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    writeFileSync(join(d, 'good.txt'), readFileSync(join(dbPath('clean'), '..', 'clean.replay-1.txt')))
    const lines = [
      { seq: 1, output_file: 'fifo' },
      { seq: 1, output_file: 'link-to-fifo' },
      { seq: 1, output_file: 'folder' },
      { seq: 1, output_file: 'missing.txt' },
      { seq: 1, output_file: 'binary.txt' },
      { seq: 1, output_file: 'latin1.txt' },
      { seq: 1, output_file: 'good.txt', prompt_file: 'fifo' },
      { seq: 1, output_file: 'good.txt' },
    ]
    const file = join(d, 'batch.jsonl')
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'))
    const t = Date.now()
    const r = bijotel(['replay', '--db', dbPath('clean'), '--batch', file, '--json'])
    expect(Date.now() - t).toBeLessThan(60_000)
    expect(r.stderr).toBe('')
    const o = objects(r.stdout)
    const byLine = new Map(o.slice(0, -1).map((x) => [x['line'], x]))
    const reason = (n: number): string => String(byLine.get(n)?.['error'])
    expect(reason(1)).toMatch(/not a regular file/)
    expect(reason(2)).toMatch(/not a regular file/)
    expect(reason(3)).toMatch(/is a directory/)
    expect(reason(4)).toMatch(/not found/)
    // A NUL byte is text, as to Python's read_text: the file is hashed and compared (not the output).
    expect(byLine.get(5)?.['status']).not.toBe('bad_line')
    expect(byLine.get(5)?.['replay_hash']).toBe(createHash('sha256').update('a\u0000b').digest('hex'))
    expect(reason(6)).toMatch(/is not valid UTF-8/)
    expect(reason(7)).toMatch(/prompt_file.*not a regular file/)
    expect(byLine.get(8)?.['status']).toBe('matched')
    for (const n of [1, 2, 3, 4, 6, 7]) expect(byLine.get(n)?.['status']).toBe('bad_line')
    // The NUL file's text is not seq 1's output: a mismatch, whose exit (3) outranks a bad line's.
    expect(o.at(-1)).toMatchObject({ summary: { lines: 8, matched: 1, bad_line: 6 }, exit: 3 })
    expect(r.code).toBe(3)
  }, 90_000)
})

describe('lines', () => {
  async function all(text: string | Buffer, max: number): Promise<BatchLine[]> {
    const out: BatchLine[] = []
    for await (const l of jsonlLines(Readable.from([Buffer.from(text)]), { baseDir: null, raw: false }, max))
      out.push(l)
    return out
  }
  it('a line over the bound is one bad line, dropped as it arrives; the next line is read', async () => {
    const big = JSON.stringify({ seq: 1, output: 'x'.repeat(500) })
    const got = await all(`${big}\n{"seq": 2, "output": "y"}\n`, 100)
    expect(got).toHaveLength(2)
    expect(got[0]).toMatchObject({ line: 1, error: expect.stringMatching(/over 100 bytes/) })
    expect(got[1]).toMatchObject({ line: 2, seq: 2 })
  })
  it('CRLF line ends, a BOM, blank lines; files refused without a folder (REST)', async () => {
    const got = await all(
      '\ufeff{"seq": 1, "output": "a"}\r\n\r\n   \n{"seq": 3, "output_file": "/etc/hostname"}',
      1000,
    )
    expect(got).toHaveLength(2)
    expect(got[0]).toMatchObject({ line: 1, seq: 1 })
    expect(got[1]).toMatchObject({
      line: 4,
      error: expect.stringMatching(/output_file is not accepted here/),
    })
  })
})

describe('arguments and stdin', () => {
  it('--batch with --seq or --output, or two readers of stdin: exit 2, one line', () => {
    for (const extra of [
      ['--seq', '1'],
      ['--output', 'x'],
      ['--prompt', 'p'],
    ]) {
      const r = bijotel(['replay', '--db', dbPath('clean'), '--batch', 'x.jsonl', ...extra])
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
    const r = bijotel(['replay', '--db', dbPath('clean'), '--batch', '-', '--secret-stdin'])
    expect(r.code).toBe(2)
  })
  it('missing DB or batch: exit 1, one line', () => {
    expect(bijotel(['replay', '--db', join(tmp.dir, 'none.db'), '--batch', '-']).code).toBe(1)
    const r = bijotel(['replay', '--db', dbPath('clean'), '--batch', join(tmp.dir, 'none.jsonl')])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
  it('JSONL on stdin; the text form prints the single-entry block and the summary; evidence unchanged', () => {
    const before = sha(dbPath('clean'))
    const input = [
      JSON.stringify({
        seq: 1,
        output: readFileSync(join(dbPath('clean'), '..', 'clean.replay-1.txt'), 'utf8'),
      }),
      'oops',
    ].join('\n')
    const r = spawnSync(process.execPath, [BIN, 'replay', '--db', dbPath('clean'), '--batch', '-'], {
      input,
      encoding: 'utf8',
    })
    expect(r.stdout).toContain('--- line 2: line 2 ---\nBAD LINE: not JSON')
    expect(r.stdout).toContain('--- line 1: line 1 ---\n=== Replay MATCH (seq=1) ===')
    expect(r.stdout).toMatch(/=== Replay batch: 2 lines ===/)
    expect(r.status).toBe(1)
    expect(sha(dbPath('clean'))).toBe(before)
  })
})

describe('bijotel report --replay-batch', () => {
  it('carries every line of the batch with its source name and SHA-256; a bad line is an argument error', () => {
    const d = join(tmp.dir, 'report-folder')
    mkdirSync(d)
    const fixtures = join(dbPath('clean'), '..')
    const names = ['clean.replay-1.txt', 'clean.replay-8.txt', 'clean.replay-78.txt']
    for (const n of names) writeFileSync(join(d, n), readFileSync(join(fixtures, n)))
    const out = join(tmp.dir, 'report.json')
    const r = bijotel(['report', '--db', dbPath('clean'), '--replay-batch', d, '-o', out])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      replay_checks: { seq: number; source: { name: string; sha256_of_bytes: string } }[]
    }
    expect(report.replay_checks.map((c) => c.source.name).sort()).toEqual([...names].sort())
    for (const c of report.replay_checks) expect(c.source.sha256_of_bytes).toBe(sha(join(d, c.source.name)))
    writeFileSync(join(d, 'notes.txt'), 'x')
    const bad = bijotel([
      'report',
      '--db',
      dbPath('clean'),
      '--replay-batch',
      d,
      '-o',
      join(tmp.dir, 'r2.json'),
    ])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--replay-batch .*notes\.txt.*gives no seq/)
  }, 60_000)
})
