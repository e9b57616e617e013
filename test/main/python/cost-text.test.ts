// The cost line of `list` and `inspect` (reference §4.10, `_calc_cost`) held to a Python model of it
// (testdata/pycost.py) on generated bodies: token counts of every JSON kind (ints, ints past the
// double range, floats, NaN/Infinity, bools, texts such as "100", lists, objects, null, absent) with
// priced, unpriced, empty and absent models. Where Python prints a cost string the same string;
// where Python's command dies (a text count × a float price is a TypeError) the line must say what
// the row holds — never `-` (which says the counts are missing) and never a figure.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import {
  COST_TOKENS_NOT_NUMBERS,
  COST_TOKENS_TOO_LARGE,
  costText,
  pyAttributes,
  pyParseBody,
} from '../../../src/main/python/py-body'

const hasPython = spawnSync('python3', ['--version']).status === 0
const PRICES_JSON = join(__dirname, '..', '..', '..', 'src', 'main', 'python', 'prices.json')

// JSON texts of token counts, as a writer could seal them.
const TOKENS = [
  '100', '0', '-3', '1', '9007199254740993', '1e3', '0.5', '1e400', '-1e400', 'NaN', 'Infinity',
  '-Infinity', 'true', 'false', '"100"', '""', '"1e3"', '"abc"', '[1]', '[]', '{"n":1}', '{}', 'null',
  '1' + '0'.repeat(320), '-' + '9'.repeat(330), '12345678901234567890', '1.5e-300',
] // prettier-ignore
const MODELS = ['"claude-haiku-4-5"', '"claude-sonnet-4-6"', '"claude-opus-4-7"', '"gpt-x"', '""', 'null']

function bodies(seed: number, count: number): string[] {
  const rnd = mulberry32(seed)
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!
  const out: string[] = []
  // Every count kind at least once against a priced model, on either side.
  for (const t of TOKENS) {
    out.push(`{"attributes":{"gen_ai.request.model":"claude-haiku-4-5","gen_ai.usage.input_tokens":${t},"gen_ai.usage.output_tokens":50}}`)
    out.push(`{"attributes":{"gen_ai.request.model":"claude-sonnet-4-6","gen_ai.usage.input_tokens":7,"gen_ai.usage.output_tokens":${t}}}`)
  } // prettier-ignore
  while (out.length < count) {
    const parts: string[] = []
    if (rnd() < 0.9) parts.push(`"gen_ai.request.model":${pick(MODELS)}`)
    if (rnd() < 0.9) parts.push(`"gen_ai.usage.input_tokens":${pick(TOKENS)}`)
    if (rnd() < 0.9) parts.push(`"gen_ai.usage.output_tokens":${pick(TOKENS)}`)
    out.push(`{"attributes":{${parts.join(',')}}}`)
  }
  return out
}

describe.skipIf(!hasPython)("costText: Python's _calc_cost", () => {
  it.each([11, 29, 47])('agrees with the Python model on generated bodies (seed %i)', (seed) => {
    const texts = bodies(seed, 160)
    const r = spawnSync('python3', [join(__dirname, 'testdata', 'pycost.py')], {
      input: JSON.stringify(texts),
      encoding: 'utf8',
      env: { ...process.env, PRICES_JSON },
    })
    expect(r.status, r.stderr).toBe(0)
    const want = JSON.parse(r.stdout) as string[]
    expect(want).toHaveLength(texts.length)
    const wrong: string[] = []
    for (let i = 0; i < texts.length; i++) {
      const got = costText(pyAttributes(pyParseBody(Buffer.from(texts[i]!, 'utf8'))))
      const py = want[i]!
      if (!py.startsWith('RAISE:')) {
        if (got !== py) wrong.push(`${texts[i]}: ${got} (Python ${py})`)
        continue
      }
      // Python dies. The line must not claim missing counts or a price it could not compute.
      const model = /"gen_ai\.request\.model":("[^"]*"|null)/.exec(texts[i]!)?.[1]
      const priced = model !== undefined && model !== 'null' && model !== '""' && model !== '"gpt-x"'
      const ok = priced ? [COST_TOKENS_NOT_NUMBERS, COST_TOKENS_TOO_LARGE].includes(got) : got.startsWith('?')
      if (!ok || got === '-' || got.startsWith('$') || got.startsWith('<$'))
        wrong.push(`${texts[i]}: ${got} (Python ${py})`)
    }
    expect(wrong).toEqual([])
  })

  it('names the cause: a text count, an int past the double range', () => {
    const of = (t: string): string =>
      costText(
        pyAttributes(
          pyParseBody(
            Buffer.from(
              `{"attributes":{"gen_ai.request.model":"claude-haiku-4-5","gen_ai.usage.input_tokens":${t},"gen_ai.usage.output_tokens":1}}`,
            ),
          ),
        ),
      )
    expect(of('"100"')).toBe(COST_TOKENS_NOT_NUMBERS)
    expect(of('[100]')).toBe(COST_TOKENS_NOT_NUMBERS)
    expect(of('1' + '0'.repeat(400))).toBe(COST_TOKENS_TOO_LARGE)
    expect(of('1000')).toBe('$0.0008')
  })
})
