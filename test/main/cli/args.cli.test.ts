// Python BIJOTEL's argument behaviour where users meet it (issue 27 items 1, 2 and 5), run through
// the built `bin/bijotel` on chains sealed in a temporary folder: option values that begin with
// '-', calendar dates, range precedence, `--range :`, and the order of the DB and secret checks.
// Expected lines are the reference's own words (bijotel-reference.md §4, §4.1, §6.4).
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bijotel, ensureBuilt } from '../testing/cli'
import { beforeEvidence } from '../testing/evidence'
import { KEY_HEX, outputOf, SmallChains } from './testing/small-chain'

const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex')

let kit: SmallChains
let chain: string
beforeAll(() => {
  ensureBuilt()
  kit = new SmallChains()
  chain = kit.write(40)
})
afterAll(() => kit.dispose())

const verify = (...args: string[]) => bijotel(['verify', '--db', chain, '--secret-hex', KEY_HEX, ...args])

describe('option values that begin with "-" (item 1)', () => {
  it('replay --output "- a bullet" hashes the Markdown list item and matches the sealed output', () => {
    expect(outputOf(1)).toBe('- a bullet')
    const r = bijotel(['replay', '--db', chain, '--seq', '1', '--output', '- a bullet'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('=== Replay MATCH (seq=1) ===')
    expect(r.stdout).toContain(`  replay_hash:    ${sha('- a bullet')}\n`)
  })

  it('a dash word without a space (-x) is an option to argparse: refused; --opt=value gives any value', () => {
    const r = bijotel(['replay', '--db', chain, '--seq', '2', '--output', '-x', '--json'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n')[0]).toBe('bijotel replay: error: argument --output: expected one argument')
    const x = bijotel(['replay', '--db', chain, '--seq', '2', '--output=-x', '--json'])
    expect(x.code).toBe(3)
    expect(JSON.parse(x.stdout).replay_hash).toBe(sha('-x'))
    const eq = bijotel(['replay', '--db', chain, '--seq', '1', '--output=- a bullet'])
    expect(eq.code).toBe(0)
  })

  it('replay --seq -1: the reference message, exit 1', () => {
    const r = bijotel(['replay', '--db', chain, '--seq', '-1', '--output', 'x'])
    expect(r.stderr).toBe('ERROR: seq -1 not found in chain\n')
    expect(r.code).toBe(1)
  })

  it('--window -1 and --last -1 get their own range message, exit 2, never "ambiguous"', () => {
    const w = bijotel(['integrity', '--db', chain, '--window', '-1'])
    expect(w.stderr).toBe('ERROR: --window must be an integer from 2 to 10000, got -1\n')
    expect(w.code).toBe(2)
    const l = verify('--last', '-1')
    expect(l.stderr).toBe("ERROR: --last must be a positive integer, got '-1'\n")
    expect(l.code).toBe(2)
    for (const r of [w, l]) expect(r.stderr).not.toMatch(/ambiguous/)
  })

  // Issue 36: argparse reads `-5:` (not a negative number, no space) as an option, so the reference
  // refuses `--range -5:` where this CLI used to verify the whole chain under a segment line. A
  // generator of such words: every one refused with argparse's message, exit 2, nothing on stdout;
  // negative numbers and words with a space stay values.
  it('--range words argparse reads as options are refused, exit 2: -5:, -5:3, -:, -1e3, -a, --x', () => {
    const words = ['-5:', '-5:3', '-:', '-1:-1', '-0:', '-1e3', '-a', '-5.', '-.', '--x', '-5:2:']
    for (let i = 1; i <= 40; i += 7) words.push(`-${i}:`, `-${i}:${i + 3}`)
    for (const w of words) {
      const r = verify('--range', w)
      expect([r.code, r.stdout], w).toEqual([2, ''])
      expect(r.stderr.split('\n')[0], w).toBe(
        'bijotel verify: error: argument --range: expected one argument',
      )
    }
  })

  it('--range values argparse takes: a negative number is a value (then the range message), =-5:3 too', () => {
    for (const w of ['-5', '-0', '-.5', '-1.25']) {
      const r = verify('--range', w)
      expect(r.stderr, w).toBe(`ERROR: --range must be A:B, got '${w}'\n`)
    }
    const eq = verify('--range=-5:3')
    expect(eq.code).toBe(0)
    expect(eq.stdout.split('\n')[0]).toBe('Chain segment VALID: seq 1-3 (3 entries of 40 total).')
  })

  it('an option where a value should be is argparse\'s "expected one argument", exit 2', () => {
    const r = bijotel(['verify', '--db', '--json'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('bijotel verify: error: argument --db: expected one argument')
    const end = bijotel(['replay', '--db', chain, '--seq'])
    expect(end.code).toBe(2)
    expect(end.stderr).toContain('argument --seq: expected one argument')
  })
})

describe('calendar dates (item 2)', () => {
  for (const [flag, value] of [
    ['--since', '2023-13-01'],
    ['--since', '2023-00-10'],
    ['--until', '2023-13-01'],
    ['--since', '2023-02-29'],
    ['--until', '2023-04-31'],
    ['--since', '0000-01-01'],
    ['--since', '2023-11-14T25:00:00Z'],
  ] as const) {
    it(`${flag} ${value} is refused with the reference's message`, () => {
      const r = verify(flag, value)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(`ERROR: ${flag} must be YYYY-MM-DD, got '${value}'\n`)
      expect(r.code).toBe(2)
    })
  }

  it('real dates: a leap day, and 2023-1-5 read as strptime reads it (= 2023-01-05)', () => {
    expect(verify('--since', '2024-02-29').code).toBe(0)
    // The chain spans 2023-11-14 00:00..00:39 UTC.
    const day = verify('--since', '2023-11-14', '--until', '2023-11-14', '--json')
    expect(JSON.parse(day.stdout).entries).toBe(40)
    const a = verify('--until', '2023-1-5', '--json')
    const b = verify('--until', '2023-01-05', '--json')
    expect(a.code).toBe(0)
    expect(JSON.parse(a.stdout)).toMatchObject({ entries: 0 })
    expect(JSON.parse(a.stdout).entries).toBe(JSON.parse(b.stdout).entries)
    expect(JSON.parse(verify('--since', '2023-11-1', '--json').stdout).entries).toBe(40)
  })
})

describe('range options resolve as the reference (item 5)', () => {
  it('--last wins over --range: --last 3 --range 1:2 verifies seq 38-40', () => {
    const r = verify('--last', '3', '--range', '1:2')
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('Chain segment VALID: seq 38-40 (3 entries of 40 total).')
    expect(r.stdout.split('\n')[1]).toMatch(
      /^Boundary: prev_hash at seq=38 = [0-9a-f]{16}\.\.\. \(matches predecessor in same DB\)$/,
    )
  })

  it('--range : prints the reference segment line for the whole chain', () => {
    const r = verify('--range', ':')
    expect(r.code).toBe(0)
    expect(beforeEvidence(r.stdout)).toBe('Chain segment VALID: seq 1-40 (40 entries of 40 total).\n')
    expect(beforeEvidence(verify().stdout)).toBe('Chain VALID (40 entries).\n')
  })

  it('a missing DB is checked before the secret and the range flags: ERROR: DB not found, exit 1', () => {
    const missing = kit.path('no-such-chain.db')
    const r = bijotel(['verify', '--db', missing])
    expect(r.stderr).toBe(`ERROR: DB not found: ${missing}\n`)
    expect(r.code).toBe(1)
    const bad = bijotel(['verify', '--db', missing, '--since', '2023-13-01'])
    expect(bad.stderr).toBe(`ERROR: DB not found: ${missing}\n`)
    expect(bad.code).toBe(1)
  })

  it('then the secret, before the range flags', () => {
    const r = bijotel(['verify', '--db', chain, '--since', '2023-13-01'])
    expect(r.stderr.split('\n')[0]).toBe(
      'ERROR: HMAC secret required. Provide via BIJOTEL_HMAC_SECRET env var or --secret-hex flag.',
    )
    expect(r.code).toBe(2)
  })
})
