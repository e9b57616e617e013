// A sealed bijotel.replay.model_version of any JSON type is printed as Python BIJOTEL prints it
// (reference §6.2, §6.4): the `model_version:` line as str() (`1.0`, `True`, `{'k0': 1.0}`,
// `(unknown)` for a falsy value), the deterministic reason quoting repr(). Generated values (ints past
// 2^53, floats written 1.0 or 1E400, nested lists and dicts, booleans, text) are held to a Python
// model of the reference (testdata/pyreplay-values.py), through `replay --seq` and `replay --batch`.
// On the old code an int past 2^53 ended the command with "internal error: Do not know how to
// serialize a BigInt" (exit 1, and a batch lost every line), and `1.0` printed as `1`.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'

const hasPython = spawnSync('python3', ['--version']).status === 0
const scratch = scratchDir('replay-sealed-values')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const valueLines = (text: string): string[] =>
  text.split('\n').filter((l) => l.startsWith('  model_version:  ') || l.startsWith('  reason:         '))

describe.skipIf(!hasPython)('sealed model_version values of every JSON type', () => {
  it('replay --seq and --batch print the lines Python prints', () => {
    const db = join(scratch.dir, 'values.db')
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pyreplay-values.py'), db, '40', '5150'], {
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as { seq: number; lines: string[] }[]
    for (const c of cases) {
      const one = bijotel(['replay', '--db', db, '--seq', String(c.seq), '--output', 'x'])
      expect(one.stderr, `seq ${c.seq}`).toBe('')
      expect(one.code, `seq ${c.seq}`).toBe(3)
      expect(valueLines(one.stdout), `seq ${c.seq}`).toEqual(c.lines)
    }
    const batch = join(scratch.dir, 'batch.jsonl')
    writeFileSync(batch, cases.map((c) => JSON.stringify({ seq: c.seq, output: 'x' }) + '\n').join(''))
    const b = bijotel(['replay', '--db', db, '--batch', batch])
    expect(b.stderr).toBe('')
    expect(b.code).toBe(3)
    const blocks = b.stdout.split(/^--- line \d+: .*---$/m).slice(1)
    expect(blocks.length).toBe(cases.length)
    blocks.forEach((block, i) => expect(valueLines(block), `line ${i + 1}`).toEqual(cases[i]!.lines))
    // The generator does reach the cases: big ints, floats written with a point, falsy values.
    const all = cases.flatMap((c) => c.lines).join('\n')
    expect(all).toMatch(/12345678901234567890|9007199254740993/)
    expect(all).toMatch(/\b1\.0\b/)
    expect(all).toContain('(unknown)')
  }, 240_000)
})
