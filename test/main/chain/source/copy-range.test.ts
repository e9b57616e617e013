// The copy path's time bounds (`verify --since/--until`) compare timestamp_ns as SQLite compares the
// column: with its INTEGER affinity (datatype3 §4.2: a stored '5' equals 5, a REAL 7.0 equals 7). The
// guard that keeps a looping oversized value from loading (./value-budget.ts `sized`) must not change
// which rows match. Generated tables of every storage class and numeric spelling, against SQLite's
// own unguarded comparison on the same file.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveOnCopy } from '../../../../src/main/chain/source/copy-range'
import { refuseOversizedValues } from '../../../../src/main/chain/source/value-budget'
import { scratchDir } from '../../reliability/chainkit'
import { mulberry32 } from '../../testing/prng'

const scratch = scratchDir('copy-range')
afterAll(() => scratch.cleanup())

const SPELLINGS = (n: number): unknown[] => [
  BigInt(n),
  String(n),
  ` ${n}`,
  `${n}.0`,
  n + 0.5,
  n * 1.0,
  `${n}e0`,
  Buffer.from(String(n)),
  null,
  'abc',
  `0x${n.toString(16)}`,
]

/** A chain table declared `timestamp_ns INTEGER` holding values of every class, as a hand edit leaves them. */
function table(path: string, seed: number): void {
  const rnd = mulberry32(seed)
  const db = new Database(path)
  try {
    db.exec('CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns)')
    const ins = db.prepare('INSERT INTO chain VALUES (?, ?)')
    for (let s = 1; s <= 60; s++) {
      const forms = SPELLINGS(Math.floor(rnd() * 20))
      ins.run(s, forms[Math.floor(rnd() * forms.length)])
    }
    // The declared type changed afterwards: the stored values keep their classes.
    db.unsafeMode(true)
    db.pragma('writable_schema = 1')
    db.exec(
      "UPDATE sqlite_schema SET sql = 'CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER)' WHERE name = 'chain'",
    )
  } finally {
    db.close()
  }
}

describe('copy path: time bounds compare as the column does', () => {
  it('matches SQLite’s unguarded comparison on generated tables', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const path = join(scratch.dir, `t-${seed}.db`)
      table(path, seed)
      const db = new Database(path, { readonly: true })
      try {
        db.defaultSafeIntegers(true)
        refuseOversizedValues(db)
        const one = (sql: string, ...p: unknown[]) =>
          db
            .prepare(sql)
            .raw(true)
            .get(...p) as unknown[] | undefined
        const rnd = mulberry32(seed * 977)
        for (let k = 0; k < 20; k++) {
          const a = BigInt(Math.floor(rnd() * 22) - 1)
          const b = a + BigInt(Math.floor(rnd() * 8))
          const want = one(
            'SELECT min(seq), max(seq) FROM chain WHERE timestamp_ns >= ? AND timestamp_ns <= ?',
            a,
            b,
          )!
          const got = resolveOnCopy({ since_ns: String(a), until_ns: String(b) }, one)
          const expected =
            want[0] === null ? { fromSeq: 0n, toSeq: -1n } : { fromSeq: want[0], toSeq: want[1] }
          expect(got, `seed ${seed}, ${a}..${b}`).toEqual(expected)
        }
      } finally {
        db.close()
      }
    }
  })
})
