// `replay --seq N` past 2^53, which argparse's `type=int` takes (reference §6.4): Python checks the
// outputs, the DB and the output file first, then looks the seq up: `ERROR: seq N not found in
// chain`, exit 1 (past SQLite's 64-bit rowids its sqlite3 raises OverflowError: a traceback, no row
// can hold it; the same line here). On the old code every such seq was an argument error (exit 2)
// before anything else was checked. A row that does hold such a seq is refused in one line (exit 1):
// the row check places rows exactly up to 2^53 only. Generated seqs around 2^53, 2^63 and beyond,
// of both signs, against a chain holding some of them (minimal table, as the reference's tests).
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir, Rng } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'

const scratch = scratchDir('replay-huge-seq')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const B53 = 1n << 53n
const B63 = 1n << 63n
const HELD = [B53 + 1n, B53 * 16n + 7n, B63 - 1n, -B63, -(B53 + 5n)]

function seqs(seed: number, count: number): bigint[] {
  const rnd = new Rng(seed)
  const bases = [B53, -B53, B63, -B63, B63 * B63, 10n ** 30n]
  const out = new Set<bigint>(HELD)
  while (out.size < count) {
    const base = bases[Math.floor(rnd.next() * bases.length)]!
    const off = BigInt(Math.floor(rnd.next() * 2000) - 1000)
    const s = base + off
    if (s > B53 - 1n || s < -(B53 - 1n)) out.add(s)
  }
  return [...out]
}

describe('replay --seq past 2^53', () => {
  it("not found in Python's words (exit 1), a held one refused in one line, after the other checks", () => {
    const db = join(scratch.dir, 'huge.db')
    const w = new Database(db)
    w.defaultSafeIntegers(true)
    w.exec(
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_hash TEXT, prev_hash TEXT, canonical_body BLOB)',
    )
    const ins = w.prepare('INSERT INTO chain VALUES (?,?,?,?,?)')
    const body = Buffer.from(
      '{"attributes":{"bijotel.replay.output_hash":"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}}',
    )
    for (const s of [1n, 2n, ...HELD])
      ins.run(s, 1700000000000000000n + (s & 0xffffn), 'h', '0'.repeat(64), body)
    w.close()
    for (const s of seqs(5353, 20)) {
      const held = HELD.includes(s)
      const r = bijotel(['replay', '--db', db, '--seq', String(s), '--output', 'x'])
      expect(r.stdout, String(s)).toBe('')
      expect(r.code, String(s)).toBe(1)
      expect(r.stderr, String(s)).toBe(
        held
          ? `ERROR: seq ${s} is in the chain but past 2^53: this tool checks rows at seqs up to 2^53 only\n`
          : `ERROR: seq ${s} not found in chain\n`,
      )
      // The reference's order of checks: the outputs, then the DB, then the seq.
      const none = bijotel(['replay', '--db', db, '--seq', String(s)])
      expect([none.code, none.stderr], String(s)).toEqual([
        2,
        "ERROR: pass exactly one of --output 'text' or --output-file PATH.\n",
      ])
      const gone = bijotel([
        'replay',
        '--db',
        join(scratch.dir, 'absent.db'),
        '--seq',
        String(s),
        '--output',
        'x',
      ])
      expect([gone.code, gone.stderr.startsWith('ERROR: chain DB not found: ')], String(s)).toEqual([1, true])
    }
    // Seqs inside 2^53 are read as before.
    const one = bijotel(['replay', '--db', db, '--seq', '1', '--output', 'x'])
    expect([one.code, one.stdout.split('\n')[0]]).toEqual([0, '=== Replay MATCH (seq=1) ==='])
  }, 300_000)
})
