// A chain's text is the audited party's: a model or provider name holding a line break, ESC (`ESC[8m` hides every
// later line of the terminal), a carriage return, a line separator or a bidirectional override would
// draw lines of its own or reorder the output. Generated names, each holding one such code point,
// are written into a copy of a fixture (bodies edited without the key, as anyone can) and every text
// command that prints a row's text must show each as <U+XXXX>, never raw.
import { afterAll, describe, expect, it } from 'vitest'
import { copyFixture, openScratch, readRows, scratchDir, updateRow } from '../../reliability/chainkit'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { SECRETS } from '../../testing/fixtures'

const scratch = scratchDir('visible-text')
afterAll(() => scratch.cleanup())

const INVISIBLE = [
  '\n',
  '\u001b[8m',
  '\r',
  '\u0085',
  '\u009b2J',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u200b',
  '\ufeff',
  '\u{e0041}',
  '\u0000',
  '\u007f',
]
const RAW = /[^\P{Cc}\n]|(?![\u200c\u200d])[\p{Cf}\p{Zl}\p{Zp}]/u

/** A copy of the clean fixture whose rows 1..n name a model and provider holding one code point each. */
function hostileChain(): string {
  const path = copyFixture('clean', scratch.dir, 'hostile.db')
  const db = openScratch(path)
  try {
    const rows = readRows(db)
    INVISIBLE.forEach((c, i) => {
      const row = rows[rows.length - 1 - i]!
      const body = Buffer.from(row.canonical_body as Buffer)
        .toString('utf8')
        .replace(
          /("gen_ai\.request\.model":")[^"]*"/,
          (_m, k: string) => `${k}gpt${JSON.stringify(c).slice(1, -1)}evil"`,
        )
        .replace(
          /("gen_ai\.provider\.name":")[^"]*"/,
          (_m, k: string) => `${k}prov${JSON.stringify(c).slice(1, -1)}x"`,
        )
      updateRow(db, row.seq, { canonical_body: Buffer.from(body, 'utf8') })
    })
    return path
  } finally {
    db.close()
  }
}

describe('text commands show a chain’s text as data', () => {
  it('list, inspect, stats, integrity and regression print no control, override or separator from a row', () => {
    ensureBuilt()
    const db = hostileChain()
    const runs: string[][] = [
      ['list', '--db', db, '--limit', '40'],
      ['stats', '--db', db],
      ['integrity', '--db', db, '--window', '100', '--provider-shift-pct', '1'],
      ['regression', '--db', db],
      ...INVISIBLE.map((_c, i) => [
        'inspect',
        '--db',
        db,
        String(240 - i),
        '--secret-hex',
        SECRETS['primary']!,
      ]),
    ]
    let shown = 0
    for (const args of runs) {
      const r = bijotel(args)
      expect(r.stderr, args.join(' ')).not.toMatch(/internal error/)
      for (const line of r.stdout.split('\n'))
        expect(line, `${args[0]}: ${JSON.stringify(line)}`).not.toMatch(RAW)
      // A line break in a name prints no line of the writer's ("gpt\nevil", "prov\nx").
      expect(r.stdout, args.join(' ')).not.toMatch(/^\s*evil/m)
      expect(r.stdout, args.join(' ')).not.toMatch(/^\s*x:/m)
      if (/<U\+[0-9A-F]{4,5}>/.test(r.stdout)) shown++
    }
    expect(shown).toBeGreaterThanOrEqual(INVISIBLE.length)
  })
})
