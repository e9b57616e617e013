// `bijotel regression` over rows that do not hold: a body edited without the key (its canonical_hash
// left), or a prev_hash rewritten, at a row whose value the judgement reads (a baseline value or an
// evaluated one: an edited token count there is a made-up "anomaly", or a hidden one) is seen without
// a key, named on stderr and gives exit 3; stdout stays the reference's (the Python oracle's bytes).
// The same edits at rows the judgement does not read change nothing. Generated: seeded chains, the
// edit's kind and place drawn, the rows read known from the construction (every row has a value).
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { mulberry32 } from '../testing/prng'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RegressionResult } from '../../../src/shared/drift-types'
import { scratchDir, spanBody, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { hasPython, regressionOracle } from './regression-oracle'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'

const scratch = scratchDir('drift-rows')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const T0 = 1_764_000_000_000_000_000n
const attrsOf = (tokens: number): Record<string, unknown> => ({
  'gen_ai.request.model': 'claude-haiku-4-5',
  'gen_ai.usage.input_tokens': tokens,
})

type Edit = 'body' | 'link' | 'rehash'
let n = 0
function generate(rand: () => number): {
  db: string
  args: string[]
  seq: number
  read: boolean
  edit: Edit
} {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  const total = 80 + Math.floor(rand() * 120)
  const window = 5 + Math.floor(rand() * 40)
  const tokens = (i: number): number => 400 + ((i * 37) % 61)
  const rows: RowSpec[] = Array.from({ length: total }, (_, i) =>
    spanRow({ timestamp_ns: T0 + BigInt(i) * 1_000_000_000n, attributes: attrsOf(tokens(i)) }),
  )
  const db = join(scratch.dir, `rows-${++n}.db`)
  writeChain(db, key, rows)
  // Seqs read: the last 50 (evaluated) and the `window` before them (the baseline).
  const firstRead = total - 49 - window
  const read = rand() < 0.6
  const seq = read
    ? firstRead + Math.floor(rand() * (total - firstRead + 1))
    : 2 + Math.floor(rand() * (firstRead - 3))
  const pick = rand()
  const edit: Edit = pick < 0.45 ? 'body' : pick < 0.75 ? 'link' : 'rehash'
  const w = new Database(db)
  try {
    if (edit !== 'link') {
      // A token count made 50× larger, the HMAC left as sealed; the canonical_hash too, or made anew.
      const body = spanBody({
        timestamp_ns: T0 + BigInt(seq - 1) * 1_000_000_000n,
        attributes: attrsOf(tokens(seq - 1) * 50),
      })
      w.prepare('UPDATE chain SET canonical_body = ? WHERE seq = ?').run(body, seq)
      if (edit === 'rehash')
        w.prepare('UPDATE chain SET canonical_hash = ? WHERE seq = ?').run(
          createHash('sha256').update(body).digest('hex'),
          seq,
        )
    } else {
      w.prepare('UPDATE chain SET prev_hash = ? WHERE seq = ?').run('ab'.repeat(32), seq)
    }
  } finally {
    w.close()
  }
  return { db, args: ['--dimension', 'input_tokens', '--window', String(window)], seq, read, edit }
}

describe('regression: rows read that do not verify (seen without a key)', () => {
  it('generated edits, read or not read (seeded)', () => {
    const rand = mulberry32(7_120_626)
    let seen = 0
    for (let i = 0; i < 16; i++) {
      const { db, args, seq, read, edit } = generate(rand)
      const what = `${edit} at seq ${seq} (${read ? 'read' : 'not read'}) ${args.join(' ')}`
      const r = bijotel(['regression', '--db', db, ...args])
      const expected = hasPython ? regressionOracle(db, args) : null
      if (expected !== null) expect(r.stdout, what).toBe(expected)
      const j = JSON.parse(bijotel(['regression', '--db', db, ...args, '--json']).stdout) as RegressionResult
      // Without a key a recomputed canonical_hash is not seen (the HMAC needs the key).
      if (!read || edit === 'rehash') {
        expect(j.row_check, what).toBeUndefined()
        expect(r.stderr, what).toBe('')
        expect(r.code, what).toBe(r.stdout.includes('Total anomalies: 0\n') ? 0 : 1)
      } else {
        seen++
        expect(r.code, what).toBe(3)
        expect(j.row_check?.verified, what).toBe(false)
        expect(j.row_check?.seqs, what).toEqual([seq])
        const words =
          edit === 'body'
            ? 'body does not hash to its canonical_hash'
            : "prev_hash is not the previous row's hmac_hash"
        expect(r.stderr, what).toBe(
          `note: rows whose values this judgement reads do NOT verify (seen without a key; HMAC not checked): seq ${seq} (${words}); ` +
            'nothing proves their payloads are the ones sealed, so a baseline or an anomaly built on them proves nothing\n',
        )
      }
      // With the chain's key every edit of a row read is seen, the HMAC's too; stdout is unchanged.
      const keyed = bijotel(['regression', '--db', db, ...args, '--secret-hex', SECRETS['primary']!])
      expect(keyed.stdout, what).toBe(r.stdout)
      if (!read) {
        expect([keyed.code, keyed.stderr], what).toEqual([r.code, ''])
        continue
      }
      expect(keyed.code, what).toBe(3)
      expect(keyed.stderr, what).toMatch(
        new RegExp(
          `^note: rows whose values this judgement reads do NOT verify \\(HMAC checked with 1 candidate key\\): seq ${seq} \\(`,
        ),
      )
      if (edit === 'rehash') expect(keyed.stderr, what).toContain('no candidate key reproduces its hmac_hash')
    }
    expect(seen).toBeGreaterThan(2)
  })
})
