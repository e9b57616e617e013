// Python's int() of an option's text (argparse's type=int, reference §4), held to CPython itself on
// generated strings: signs, underscores, leading zeros, every kind of white space Python strips
// (and U+FEFF and U+200B, which it does not), Unicode decimal digits of several scripts (Arabic-Indic,
// fullwidth, the mathematical runs that follow each other directly), digits that are not decimal
// (superscripts, circled, roman numerals), letters, dots, and texts past the 4300-digit limit.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { pyInt } from '../../../src/main/python/py-int'

const hasPython = spawnSync('python3', ['--version']).status === 0

const PARTS = [
  '0', '1', '7', '9', '00', '_', '__', '+', '-', ' ', '\t', '\n', '\v', '\f', '\r', '\x1c', '\x1f',
  '\x85', '\xa0', '\u3000', '\u2028', '\u2007', '\ufeff', '\u200b', 'a', 'e', 'x', '.', ',',
  '١', '٣', '۹', '०', '０', '９', '𝟎', '𝟗', '𝟙', '𝟶', '𝟿', '߀', '᧚', '²', '①', 'Ⅻ', 'ↂ', '٫',
] // prettier-ignore

function generate(seed: number, count: number): string[] {
  const rnd = mulberry32(seed)
  const out: string[] = ['', ' ', '_', '1_000', '1__0', '_1', '1_', '0x10', '1e3', '10abc', '+-1', '-0']
  out.push('1'.repeat(4300), '1'.repeat(4301), `${'1_'.repeat(2200)}1`, ` -${'0'.repeat(4301)} `)
  while (out.length < count) {
    const k = 1 + Math.floor(rnd() * 6)
    let s = ''
    for (let i = 0; i < k; i++) s += PARTS[Math.floor(rnd() * PARTS.length)]!
    out.push(s)
  }
  return out
}

describe.skipIf(!hasPython)("pyInt: Python's int() of a text", () => {
  it('agrees with CPython on 6,000 generated texts', () => {
    const texts = generate(2718, 6000)
    const script =
      'import json,sys\nout=[]\nfor s in json.load(sys.stdin):\n' +
      '    try: out.append(str(int(s)))\n    except ValueError: out.append(None)\nprint(json.dumps(out))'
    const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const want = JSON.parse(r.stdout) as (string | null)[]
    let ints = 0
    texts.forEach((t, i) => {
      const got = pyInt(t)
      expect(got === null ? null : got.toString(), JSON.stringify(t)).toBe(want[i])
      if (got !== null) ints++
    })
    expect(ints).toBeGreaterThan(300) // both answers occur often
    expect(texts.length - ints).toBeGreaterThan(300)
  })
})
