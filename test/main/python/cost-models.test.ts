// The cost line of `list` and `inspect` for hostile models (reference §4.10, `_calc_cost`), held to
// the one Python model of the rule: testdata/pycost.py (the reference's `model not in PRICES` and
// `model[:30]` on the model as sealed), which ../browse/testdata/pybrowse.py now imports instead of
// keeping a second rule of its own (it read every non-string model as `?str(model)[:30]`, where the
// reference stops: a list or object is unhashable, a truthy number or bool is not subscriptable).
// Generated bodies: numbers (ints, negative, 0, floats, past the double range), booleans, null,
// lists, objects, priced names, and very long names (ASCII, accents, astral characters, combining
// marks). Where pycost prints a string ours is the same; where it stops Python ours is pybrowse's
// departure (`?` and str(model)[:30], `?(none)` when falsy), asked of Python itself.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { costText, pyAttributes, pyParseBody } from '../../../src/main/python/py-body'
import { mulberry32 } from '../testing/prng'

const hasPython = spawnSync('python3', ['--version']).status === 0
const PRICES_JSON = join(__dirname, '..', '..', '..', 'src', 'main', 'python', 'prices.json')
const BROWSE = join(__dirname, '..', 'browse', 'testdata')

function longName(rnd: () => number): string {
  const alphabet = ['a', 'Z', '-', '.', 'é', 'ß', '\u{1F600}', '\u{10348}', 'e\u0301', '中', ' ', '"', '\\']
  const n = 20 + Math.floor(rnd() * 400)
  let s = rnd() < 0.3 ? 'claude-haiku-4-5' : ''
  while (s.length < n) s += alphabet[Math.floor(rnd() * alphabet.length)]!
  return JSON.stringify(s)
}

function models(rnd: () => number): string {
  const fixed = [
    '0', '1', '-7', '3.5', '0.0', '-0.0', '1e400', '12345678901234567890', 'true', 'false', 'null',
    '[]', '["claude-haiku-4-5"]', '[1,2,3]', '{}', '{"a":1}', '{"claude-haiku-4-5":"x"}', '""',
    '"claude-haiku-4-5"', '"claude-sonnet-4-6"', '"gpt-x"', '[[]]', '[null]', '{"":""}',
  ] // prettier-ignore
  return rnd() < 0.35 ? longName(rnd) : fixed[Math.floor(rnd() * fixed.length)]!
}

function bodies(seed: number, count: number): string[] {
  const rnd = mulberry32(seed)
  const tokens = ['100', '0', '7', '50', 'null']
  const out: string[] = []
  while (out.length < count) {
    const parts: string[] = []
    if (rnd() < 0.95) parts.push(`"gen_ai.request.model":${models(rnd)}`)
    if (rnd() < 0.95) parts.push(`"gen_ai.usage.input_tokens":${tokens[Math.floor(rnd() * tokens.length)]!}`)
    if (rnd() < 0.95) parts.push(`"gen_ai.usage.output_tokens":${tokens[Math.floor(rnd() * tokens.length)]!}`)
    out.push(`{"attributes":{${parts.join(',')}}}`)
  }
  return out
}

/** Per body: [pycost's string or "RAISE:<type>", pybrowse's string]. */
function python(texts: string[]): [string, string][] {
  const script =
    'import json,sys\nsys.path.insert(0, sys.argv[1])\nimport pybrowse, pycost\nout=[]\n' +
    'for t in json.load(sys.stdin):\n' +
    '    try: ref = pycost.cost(json.loads(t))\n' +
    '    except Exception as e: ref = "RAISE:" + type(e).__name__\n' +
    '    out.append([ref, pybrowse.cost(pybrowse.attrs_of(pybrowse.body_of(t.encode())))])\n' +
    'print(json.dumps(out))'
  const r = spawnSync('python3', ['-c', script, BROWSE], {
    input: JSON.stringify(texts),
    encoding: 'utf8',
    env: { ...process.env, PRICES_JSON },
  })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as [string, string][]
}

describe.skipIf(!hasPython)('cost of hostile models: one Python model, ours equal to it', () => {
  it.each([3, 31, 313])('generated bodies (seed %i)', (seed) => {
    const texts = bodies(seed, 300)
    const py = python(texts)
    const wrong: string[] = []
    let raised = 0
    texts.forEach((t, i) => {
      const [ref, browse] = py[i]!
      if (ref.startsWith('RAISE:')) raised++
      // pybrowse is pycost wherever the reference prints.
      else if (browse !== ref) wrong.push(`pybrowse ${t}: ${browse} (pycost ${ref})`)
      const got = costText(pyAttributes(pyParseBody(Buffer.from(t, 'utf8'))))
      if (got !== browse) wrong.push(`ours ${t}: ${got} (Python ${browse}, reference ${ref})`)
    })
    expect(wrong).toEqual([])
    expect(raised).toBeGreaterThan(5)
  })
})
