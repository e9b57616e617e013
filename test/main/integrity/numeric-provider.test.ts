// A provider written as a JSON number stays a number in Python (reference §5.2) and becomes a key of
// `integrity --json`'s provider_shift by json.dumps: an int's exact digits, a float's repr (`1.0`,
// `1e+16`, `Infinity` past the double range). Generated chains whose halves carry different numeric
// providers, read by both body readers (the native scanner and JSON.parse), are held to Python's own
// json.loads/json.dumps on the same files. Before the fix `1.0` printed `1`, `1e16` printed
// `10000000000000000` and `12345678901234567891` printed `12345678901234567000`.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { bijotel, ensureBuilt } from '../replay/testcli'
import { TempChains, BASE_TS, SEC } from './testchain'

const hasPython = spawnSync('python3', ['--version']).status === 0
const chains = new TempChains()
beforeAll(() => ensureBuilt())
afterAll(() => chains.dispose())

/** Random JSON number literals of every shape json.loads reads (never 0: a falsy provider). */
function literal(rnd: () => number): string {
  const d = (n: number): string =>
    String(1 + Math.floor(rnd() * 9)) +
    Array.from({ length: n }, () => String(Math.floor(rnd() * 10))).join('')
  const sign = rnd() < 0.2 ? '-' : ''
  switch (Math.floor(rnd() * 8)) {
    case 0:
      return sign + d(Math.floor(rnd() * 4)) // small int
    case 1:
      return sign + d(16 + Math.floor(rnd() * 30)) // int past 2^53
    case 2:
      return `${sign}${d(Math.floor(rnd() * 3))}.0` // integral float
    case 3:
      return `${sign}${d(2)}.${d(3)}` // fraction
    case 4:
      return `${sign}${d(0)}e${Math.floor(rnd() * 40)}` // exponent, repr's e+NN past 1e16
    case 5:
      return `${sign}${d(1)}.${d(1)}E-${1 + Math.floor(rnd() * 9)}` // small
    case 6:
      return `${sign}1e${400 + Math.floor(rnd() * 50)}` // past the double range: inf
    default:
      return `${sign}0.${d(12)}`
  }
}

const PY_MODEL = `
import json, sqlite3, sys
def prov(b):
    try:
        d = json.loads(b.decode('utf-8'))
    except ValueError:
        return 'unknown'
    a = d.get('attributes', {}) if isinstance(d, dict) else {}
    if not isinstance(a, dict): a = {}
    return a.get('gen_ai.provider.name') or a.get('gen_ai.system') or 'unknown'
jk = lambda p: next(iter(json.loads(json.dumps({p: 0}))))
out = []
for path in sys.argv[1:]:
    rows = sqlite3.connect(path).execute('SELECT canonical_body FROM chain ORDER BY seq').fetchall()
    ps = [prov(r[0]) for r in rows]
    n = len(ps); mid = n // 2; base = {}; cur = {}
    for p in ps[:mid]: base[p] = base.get(p, 0) + 1
    for p in ps[mid:]: cur[p] = cur.get(p, 0) + 1
    sh = {}
    for p in sorted(set(base) | set(cur), key=jk):
        bp = base.get(p, 0) / mid * 100; cp = cur.get(p, 0) / (n - mid) * 100
        if abs(cp - bp) > 20.0:
            sh[p] = {'baseline_pct': round(bp, 1), 'current_pct': round(cp, 1), 'delta_pct': round(cp - bp, 1)}
    out.append(json.dumps({'shifts': sh} if sh else None, separators=(',', ':')))
print(json.dumps(out))
`

describe.skipIf(!hasPython)('numeric providers are keyed as Python keys them', () => {
  it('generated chains, both body readers, against Python json.loads/json.dumps', () => {
    const rnd = mulberry32(0x9e0)
    const paths: string[] = []
    for (let c = 0; c < 16; c++) {
      // Two providers whose Python values differ (equal values would share one key in Python's dict).
      let a = literal(rnd)
      let b = literal(rnd)
      while (Number(a) === Number(b) || Number(b) === 0 || Number(a) === 0) {
        a = literal(rnd)
        b = literal(rnd)
      }
      const n = 20 + Math.floor(rnd() * 30)
      const rows = Array.from({ length: n }, (_, i) => ({
        seq: i + 1,
        ts: BASE_TS + BigInt(i) * 180n * SEC,
        body: `{"attributes":{"gen_ai.provider.name":${i < n / 2 ? a : rnd() < 0.3 ? '"openai"' : b}}}`,
        hash: `hash-${i + 1}`,
      }))
      paths.push(chains.write(rows))
    }
    const script = join(chains.dir, 'model.py')
    writeFileSync(script, PY_MODEL)
    const py = spawnSync('python3', [script, ...paths], { encoding: 'utf8', maxBuffer: 16 << 20 })
    expect(py.status, py.stderr).toBe(0)
    const want = JSON.parse(py.stdout) as string[]
    const diffs: string[] = []
    for (const native of ['1', '0']) {
      paths.forEach((p, i) => {
        const r = bijotel(['integrity', '--db', p, '--json'], { BIJOTEL_NATIVE: native })
        // The bytes as printed (a parse would drop Python's `100.0`).
        const got = /"provider_shift":(.*),"rate_anomalies"/.exec(r.stdout)?.[1]
        if (got !== want[i]) diffs.push(`native=${native} ${p}\n  py ${want[i]}\n  ts ${got}`)
      })
    }
    expect(diffs.slice(0, 5)).toEqual([])
  }, 300_000)
})
