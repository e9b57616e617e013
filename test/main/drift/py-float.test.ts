// `float(v)` as Python computes it for a token count or ttfc written as text (reference §8's
// `_extract_dimension_value`): CPython reads every Unicode decimal digit as its ASCII digit and strips
// Unicode spaces (not U+FEFF, not U+001C–U+001F) — `float('١٢')` and `float('１２')` are 12.0, so such a
// row is a datapoint there, and was skipped here (the baseline's mean, the anomalies differed).
// Generated strings are held to python3's own float() (digits from the blocks of Unicode 14, which
// Python 3.11 knows).
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { hasPython } from './regression-oracle'
import { pyFloatOf } from '../../../src/main/drift/dimensions'

/** Zeros of decimal-digit blocks of Unicode 14 (ASCII, Arabic-Indic, Devanagari, Thai, fullwidth, math bold…). */
const ZEROS = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10, 0x1d7ce, 0x1d7d8, 0x104a0, 0x11066]
const SPACES = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\x0b',
  '\x0c',
  '\x85',
  '\xa0',
  '\u1680',
  '\u2003',
  '\u2028',
  '\u202f',
  '\u3000',
]
const NOT_SPACES = ['\ufeff', '\x1c', '\x1f', '\u200b', '\u180e']

function generate(rand: () => number): string {
  const pick = <X>(a: readonly X[]): X => a[Math.floor(rand() * a.length)]!
  const zero = pick(ZEROS)
  const digits = (n: number): string =>
    Array.from({ length: n }, () =>
      String.fromCodePoint((rand() < 0.8 ? zero : pick(ZEROS)) + Math.floor(rand() * 10)),
    ).join('')
  let body = digits(1 + Math.floor(rand() * 4))
  if (rand() < 0.3) body += '.' + digits(1 + Math.floor(rand() * 2))
  if (rand() < 0.15) body += 'e' + digits(1)
  if (rand() < 0.1) body = body.replace(/^(.)/u, '$1_')
  if (rand() < 0.15) body = '-' + body
  const pad = (): string => (rand() < 0.5 ? '' : rand() < 0.8 ? pick(SPACES) : pick(NOT_SPACES))
  let text = pad() + body + pad()
  if (rand() < 0.05) text = body.slice(0, 1) + pick(SPACES) + body.slice(1)
  return text
}

describe.skipIf(!hasPython)("pyFloatOf: Python's float() of text", () => {
  it('generated digit strings of many scripts and spaces (seeded): the same value or the same refusal', () => {
    const rand = mulberry32(1207)
    const texts = Array.from({ length: 3000 }, () => generate(rand))
    const py = spawnSync(
      'python3',
      [
        '-c',
        `import json,sys
out=[]
for t in json.load(sys.stdin):
    try: v=float(t)
    except ValueError: v=None
    out.append(None if v is None else repr(v))
print(json.dumps(out))`,
      ],
      { input: JSON.stringify(texts), encoding: 'utf8' },
    )
    expect(py.status, py.stderr).toBe(0)
    const expected = JSON.parse(py.stdout) as (string | null)[]
    let accepted = 0
    texts.forEach((t, i) => {
      const got = pyFloatOf(t)
      const want = expected[i]!
      if (want === null) expect(got, JSON.stringify(t)).toBeNull()
      else {
        accepted++
        expect(got, JSON.stringify(t)).toBe(Number(want.replace('inf', 'Infinity')))
      }
    })
    expect(accepted).toBeGreaterThan(1000)
  })
})
