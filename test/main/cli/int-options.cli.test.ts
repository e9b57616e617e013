// The reference's int options (argparse `type=int`, reference §4: replay --seq, integrity --window,
// verify --last, list --limit/--offset, regression --window) read as Python's int() reads their text.
// Spellings of a value are generated (white space Python strips and some it does not, signs,
// underscores, leading zeros, Arabic-Indic, fullwidth and mathematical digits, U+FEFF, '1e1', '3.0'),
// CPython says which are ints and of what value, and each run must print what the plain decimal
// prints — or, where int() raises, argparse's "invalid int value", exit 2. Each command had its own
// reader before: `list --limit 1_0`, `verify --last 1_0` and `integrity --window 2_5` were refused,
// `replay --seq ٣` and `--seq -٣` were refused, `replay --seq $'\ufeff3'` was read as 3 (Python
// refuses it).
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { bijotel, ensureBuilt } from '../testing/cli'
import { KEY_HEX, SmallChains } from './testing/small-chain'

const hasPython = spawnSync('python3', ['--version']).status === 0

let kit: SmallChains
let chain: string
beforeAll(() => {
  ensureBuilt()
  kit = new SmallChains()
  chain = kit.write(40)
})
afterAll(() => kit.dispose())

const DIGITS = ['0123456789', '٠١٢٣٤٥٦٧٨٩', '０１２３４５６７８９', '𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗', '०१२३४५६७८९']
const AROUND = ['', ' ', '\t', '\n', '\u3000', '\xa0', '\x85', '\ufeff', '\x1c', '\u200b']

/** Spellings of `value`: digits of one script or mixed, underscores, a sign, white space around. */
function spellings(value: number, seed: number, count: number): string[] {
  const rnd = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const out = new Set<string>([`${value}.0`, `${value}abc`, `${value}e0`, `0x${value}`, `${value}__`])
  while (out.size < count) {
    const digits = [...String(Math.abs(value))].map((d) => [...pick(DIGITS)][Number(d)]!)
    let body = rnd() < 0.3 ? `0${digits.join('')}` : digits.join(rnd() < 0.3 ? '_' : '')
    if (value < 0) body = `-${body}`
    else if (rnd() < 0.2) body = `+${body}`
    const around = (): string => (rnd() < 0.5 ? '' : pick(AROUND))
    out.add(`${around()}${body}${around()}`)
  }
  return [...out]
}

/**
 * What Python's argparse makes of each text after a `type=int` option: 'option' where
 * `_parse_optional` takes it for an option (a dash word that is not a negative number to its
 * Unicode `\\d` and holds no space: "expected one argument"), else int()'s decimal, or null where
 * int() raises ("invalid int value").
 */
function pythonInts(texts: string[]): (string | null)[] {
  const script = [
    'import json,re,sys',
    "neg=re.compile(r'^-\\d+$|^-\\d*\\.\\d+$')",
    'out=[]',
    'for s in json.load(sys.stdin):',
    "    if s.startswith('-') and len(s)>1 and not neg.match(s) and ' ' not in s: out.append('option'); continue",
    '    try: out.append(str(int(s)))',
    '    except ValueError: out.append(None)',
    'print(json.dumps(out))',
  ].join('\n')
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as (string | null)[]
}

/** stdout without verify's final `Evidence:` line (the other commands print none). */
const verdict = (stdout: string): string => stdout.replace(/^Evidence: db=.*\n$/m, '')

interface Option {
  flag: string
  value: number
  run: (v: string) => string[]
}

const OPTIONS: Option[] = [
  { flag: '--seq', value: 3, run: (v) => ['replay', '--db', chain, '--seq', v, '--output', 'x'] },
  { flag: '--seq', value: -3, run: (v) => ['replay', '--db', chain, '--seq', v, '--output', 'x'] },
  { flag: '--window', value: 25, run: (v) => ['integrity', '--db', chain, '--window', v] },
  { flag: '--last', value: 12, run: (v) => ['verify', '--db', chain, '--secret-hex', KEY_HEX, '--last', v] },
  { flag: '--limit', value: 10, run: (v) => ['list', '--db', chain, '--limit', v] },
  { flag: '--offset', value: 7, run: (v) => ['list', '--db', chain, '--offset', v] },
  { flag: '--window', value: 12, run: (v) => ['regression', '--db', chain, '--window', v] },
]

describe.skipIf(!hasPython)("int options read as Python's int() reads them", () => {
  for (const [i, o] of OPTIONS.entries()) {
    it(`${o.run('V')[0]} ${o.flag} ${o.value}: every generated spelling`, () => {
      const plain = bijotel(o.run(String(o.value)))
      const texts = spellings(o.value, 91 + i, 14)
      const ints = pythonInts(texts)
      let read = 0
      texts.forEach((t, k) => {
        const r = bijotel(o.run(t))
        const what = `${o.flag} ${JSON.stringify(t)}`
        if (ints[k] === null || ints[k] === 'option') {
          expect(r.code, what).toBe(2)
          // argparse's words, or integrity's one line as for its range (`--window must be an integer`).
          const why =
            ints[k] === null
              ? `argument ${o.flag}: invalid int value|${o.flag} must be an integer`
              : `argument ${o.flag}: expected one argument`
          expect(r.stderr, what).toMatch(new RegExp(`^(bijotel \\w+: error|ERROR): (${why})`))
          expect(r.stdout, what).toBe('')
        } else {
          expect(ints[k], what).toBe(String(o.value))
          expect(r.code, `${what}: ${r.stderr}`).toBe(plain.code)
          expect(verdict(r.stdout), what).toBe(verdict(plain.stdout))
          expect(r.stderr, what).toBe(plain.stderr)
          read++
        }
      })
      expect(read).toBeGreaterThan(3) // both kinds of spelling occur
      expect(texts.length - read).toBeGreaterThan(3)
    }, 120_000)
  }
})
