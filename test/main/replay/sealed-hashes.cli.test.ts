// A sealed bijotel.replay.output_hash of any JSON type gets the reference's block (§6.2, §6.4) from
// `replay --seq` and `replay --batch`, held to a Python model of the reference
// (testdata/pyreplay-hashes.py): a match only for the exact lower-case hex string (upper case, white
// space around, a prefix, a number or a list holding it are mismatches), and a falsy non-string (0,
// 0.0, false, [], {}) printed as Python's `original_hash or '(none — …)'` prints it, with the
// mismatch reason (it is not None). On the old code such a value printed `0`, `False`, `[]` on the
// original_hash line, and the batch counted it no differently; the app's block (replay-format.ts)
// printed an empty sealed hash as nothing.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { replayCliLines } from '../../../src/renderer/src/lib/replay-format'

const hasPython = spawnSync('python3', ['--version']).status === 0
const scratch = scratchDir('replay-sealed-hashes')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

interface Case {
  seq: number
  output: string
  code: number
  lines: string[]
}

const block = (text: string): string[] =>
  text.split('\n').filter((l) => l.startsWith('==') || l.startsWith('  '))

describe.skipIf(!hasPython)('sealed output_hash values of every JSON type', () => {
  it('replay --seq, --json, --batch and the app print what Python prints', () => {
    const db = join(scratch.dir, 'hashes.db')
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pyreplay-hashes.py'), db, '30', '90909'], {
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    const cases = JSON.parse(r.stdout) as Case[]
    for (const c of cases) {
      const one = bijotel(['replay', '--db', db, '--seq', String(c.seq), '--output', c.output])
      expect(one.stderr, `seq ${c.seq}`).toBe('')
      expect(one.code, `seq ${c.seq}`).toBe(c.code)
      expect(block(one.stdout), `seq ${c.seq}`).toEqual(c.lines)
      // The app's "as the CLI prints it" from the same result.
      const js = bijotel(['replay', '--db', db, '--seq', String(c.seq), '--output', c.output, '--json'])
      expect(replayCliLines(c.seq, JSON.parse(js.stdout)), `app seq ${c.seq}`).toEqual(c.lines)
    }
    const batch = join(scratch.dir, 'batch.jsonl')
    writeFileSync(batch, cases.map((c) => JSON.stringify({ seq: c.seq, output: c.output }) + '\n').join(''))
    const b = bijotel(['replay', '--db', db, '--batch', batch])
    expect(b.stderr).toBe('')
    const blocks = b.stdout.split(/^--- line \d+: .*---$/m).slice(1)
    expect(blocks.length).toBe(cases.length)
    blocks.forEach((text, i) =>
      expect(block(text).slice(0, cases[i]!.lines.length), `line ${i + 1}`).toEqual(cases[i]!.lines),
    )
    // The batch's statuses follow the reason printed: no_metadata only where there is none.
    const j = bijotel(['replay', '--db', db, '--batch', batch, '--json'])
    const items = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status?: string; line?: number })
      .filter((o) => typeof o.line === 'number')
    expect(items.length).toBe(cases.length)
    items.forEach((it, i) => {
      const noMeta = cases[i]!.lines.some((l) => l.includes('logged before v2.7.0'))
      expect(it.status === 'no_metadata', `line ${i + 1}`).toBe(noMeta)
    })
    // The generator reaches the cases: falsy values, matches, and look-alikes of the hash.
    const all = cases.flatMap((c) => c.lines).join('\n')
    expect(all).toContain('(none \u2014 entry has no replay metadata)\n  replay_hash')
    expect(all).toMatch(/output hash mismatch/)
    expect(cases.some((c) => c.code === 0)).toBe(true)
    expect(all).toMatch(/original_hash: {2}[0-9A-F]{64}\n/)
  }, 300_000)
})
