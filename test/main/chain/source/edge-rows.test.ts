// The `Evidence:` line states the first and last timestamp_ns of the rows judged: those of the rows
// the pass begins and ends on. A table b-tree may hold one rowid twice (file format §1.6: nothing
// but the writer keeps rowids unique and ascending; SQLite's scan reads cells as stored), so the
// last seq can also stand earlier in the scan. Both readers must then state the same row — the
// scan's last, as SQLite's `ORDER BY seq DESC LIMIT 1` on the copy reads it — not one reader the
// pass's last row and the other the first row holding that seq. The generator writes duplicate
// rowids at many places of a chain of small pages and holds verify, `verify --range` and
// `integrity --evidence`, direct and through SQLite, to SQLite's own scan.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type Database from 'better-sqlite3'
import { nsToIso } from '../../../../src/main/chain/ns-time'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { scratchDir } from '../../reliability/chainkit'
import { withSqliteCopy } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'
import { chainRoot, SECRET, smallPageChain } from './divider-kit'
import { leafCells, setRowid, type LeafCell } from './rowid-kit'

const ROWS = 400

const scratch = scratchDir('edge-rows')
afterAll(() => scratch.cleanup())

/** seq and timestamp_ns of every row in SQLite's scan order. */
function sqliteScan(path: string): { seq: bigint; ts: bigint }[] {
  return withSqliteCopy(
    path,
    (db: Database.Database) =>
      db.prepare('SELECT seq, timestamp_ns AS ts FROM chain NOT INDEXED').safeIntegers(true).all() as {
        seq: bigint
        ts: bigint
      }[],
  )
}

/** Which cell (position in scan order) takes which other cell's rowid. */
type Shape = (n: number, rnd: () => number) => [number, number]

const pick = (n: number, rnd: () => number): number => Math.floor(rnd() * n)

const SHAPES: Record<string, Shape> = {
  // An earlier row holds the last seq: the scan's last row and the first row with its seq differ.
  'an earlier row takes the last seq': (n, rnd) => [200 + pick(n - 201, rnd), n - 1],
  // The last row takes an earlier seq: the last seq is the scan's last and stands earlier too.
  'the last row takes an earlier seq': (n, rnd) => [n - 1, 200 + pick(n - 201, rnd)],
  // The row before the last repeats it (one leaf holds the seq twice).
  'the row before the last takes its seq': (n) => [n - 2, n - 1],
  // A later row repeats the first seq stated by a range (seqs 128.. are two-byte varints).
  'a later row takes a range start': (n, rnd) => [200 + pick(n - 201, rnd), 150],
}

interface Stated {
  first_seq: number | null
  last_seq: number | null
  first_timestamp_ns: string | null
  last_timestamp_ns: string | null
}

function verifyEvidence(path: string, env: Record<string, string>, args: string[] = []): Stated {
  const r = bijotel(['verify', '--db', path, '--secret-hex', SECRET, '--json', ...args], env)
  expect([0, 3], r.stderr).toContain(r.code)
  return (JSON.parse(r.stdout) as { evidence: Stated }).evidence
}

function integrityEvidence(path: string, env: Record<string, string>): string {
  const r = bijotel(['integrity', '--db', path, '--all', '--evidence'], env)
  expect(r.stderr).not.toMatch(/\n\s+at /)
  return r.stdout.split('\n').find((l) => l.startsWith('Evidence:')) ?? ''
}

/** The timestamps SQLite's scan gives the rows a pass over [from, to] begins and ends on. */
function scanEdges(scan: { seq: bigint; ts: bigint }[], from: bigint, to: bigint): [string, string] {
  const rows = scan.filter((r) => r.seq >= from && r.seq <= to)
  return [String(rows[0]!.ts), String(rows.at(-1)!.ts)]
}

const READER_ENVS: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]

describe('the Evidence line states the rows the pass begins and ends on, on both readers', () => {
  let base = ''
  let cells: LeafCell[] = []
  beforeAll(() => {
    ensureBuilt()
    base = smallPageChain(scratch.dir, 'base.db', ROWS)
    cells = leafCells(base, chainRoot(base))
    expect(cells.length).toBe(ROWS)
  })

  const CASES = 2
  for (const [name, shape] of Object.entries(SHAPES))
    it(`${name}, ${CASES} places`, () => {
      const rnd = mulberry32(name.length * 104729)
      for (let k = 0; k < CASES; k++) {
        const [to, from] = shape(ROWS, rnd)
        const path = join(scratch.dir, `${name.replace(/\W+/g, '-')}-${k}.db`)
        copyFileSync(base, path)
        setRowid(path, chainRoot(path), to, cells[from]!.rowid)
        const scan = sqliteScan(path)
        const what = `${name}: cell ${to} takes seq ${cells[from]!.rowid}`
        // The whole chain.
        const [first, last] = scanEdges(scan, -(2n ** 63n), 2n ** 63n - 1n)
        const lines: string[] = []
        for (const env of READER_ENVS) {
          const e = verifyEvidence(path, env)
          expect(e.first_seq, what).toBe(Number(scan[0]!.seq))
          expect(e.last_seq, what).toBe(Number(scan.at(-1)!.seq))
          expect([e.first_timestamp_ns, e.last_timestamp_ns], `${what} ${JSON.stringify(env)}`).toEqual([
            first,
            last,
          ])
          lines.push(integrityEvidence(path, env))
        }
        // integrity's Evidence line: the same on both readers (its hashes included).
        const time = (ns: string): string => nsToIso(BigInt(ns))
        expect(lines[0], what).toContain(`first_time=${time(first)} last_time=${time(last)}`)
        expect(lines[1], what).toBe(lines[0])
        // A range that begins at a seq a later row repeats: the range's own first row.
        const lo = cells[from]!.rowid
        const hi = lo + 40
        const [rf, rl] = scanEdges(scan, BigInt(lo), BigInt(hi))
        const ranged = READER_ENVS.map((env) => verifyEvidence(path, env, ['--range', `${lo}:${hi}`]))
        for (const e of ranged)
          expect([e.first_timestamp_ns, e.last_timestamp_ns], `${what} --range ${lo}:${hi}`).toEqual([rf, rl])
      }
    })
})
