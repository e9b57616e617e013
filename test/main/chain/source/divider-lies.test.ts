// Divider keys that lie every way (file format §1.6: an interior cell's key is the largest rowid of
// its left subtree, but only the writer keeps it so): raised past the child's range, lowered, made
// equal to the next key, swapped with another (out of order), set to the smallest or largest key a
// two-byte varint holds. The leaves are untouched, so SQLite's scan reads the rows it read before;
// only a seek is misled. `verify --range`, `list` and `inspect` must answer from the scan on both
// readers: the rows and seqs of the range, every row listed, the scan's first row with a seq.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type Database from 'better-sqlite3'
import { bijotel, ensureBuilt } from '../../testing/cli'
import { withSqliteCopy } from '../../testing/fixtures'
import { scratchDir } from '../../reliability/chainkit'
import { mulberry32 } from '../../testing/prng'
import { chainRoot, dividers, SECRET, setKey, smallPageChain, type Divider } from './divider-kit'

const ROWS = 900

const scratch = scratchDir('divider-lies')
afterAll(() => scratch.cleanup())

type Lie = (d: Divider, all: Divider[], rnd: () => number) => Array<[Divider, number]>

const pick = <T>(xs: T[], rnd: () => number): T => xs[Math.floor(rnd() * xs.length)]!

const LIES: Record<string, Lie> = {
  raised: (d, _a, rnd) => [[d, Math.min(16383, d.key + 5 + Math.floor(rnd() * 300))]],
  lowered: (d, _a, rnd) => [[d, Math.max(128, d.key - 5 - Math.floor(rnd() * 300))]],
  'equal to the next': (d, all) => {
    const next = all.find((x) => x.page === d.page && x.key > d.key)
    return next ? [[d, next.key]] : []
  },
  'swapped with another': (d, all, rnd) => {
    const o = pick(
      all.filter((x) => x !== d && x.len === 2),
      rnd,
    )
    return [
      [d, o.key],
      [o, d.key],
    ]
  },
  'smallest two-byte key': (d) => [[d, 128]],
  'largest two-byte key': (d) => [[d, 16383]],
}

interface Scan {
  seq: bigint
  mac: string
}

function scanOf(path: string): Scan[] {
  return withSqliteCopy(
    path,
    (db: Database.Database) =>
      db.prepare('SELECT seq, hmac_hash AS mac FROM chain NOT INDEXED').safeIntegers(true).all() as Scan[],
  )
}

const ENVS: Record<string, string>[] = [{}, { BIJOTEL_READER: 'sqlite' }]

describe('divider keys that lie every way', () => {
  let base = ''
  let scan: Scan[] = []
  beforeAll(() => {
    ensureBuilt()
    base = smallPageChain(scratch.dir, 'base.db', ROWS)
    scan = scanOf(base)
  })

  for (const [name, lie] of Object.entries(LIES))
    it(`${name}: verify --range, list and inspect answer from the scan`, () => {
      const rnd = mulberry32(name.length * 7727)
      const all = dividers(base, chainRoot(base)).filter((d) => d.len === 2 && d.key >= 128)
      const d = pick(all, rnd)
      const path = join(scratch.dir, `${name.replace(/\W+/g, '-')}.db`)
      copyFileSync(base, path)
      const edits = lie(d, all, rnd)
      for (const [x, key] of edits) setKey(path, x, key)
      // The leaves are as written: SQLite's scan is unchanged.
      expect(scanOf(path)).toEqual(scan)
      const what = `${name}: ${edits.map(([x, k]) => `page ${x.page} key ${x.key} -> ${k}`).join(', ')}`
      // A range around the lie (where a seek is misled), and a seq on each side of it.
      const lo = Math.max(1, d.key - 40)
      const hi = Math.min(ROWS, d.key + 40)
      const inRange = scan.filter((r) => r.seq >= BigInt(lo) && r.seq <= BigInt(hi))
      for (const env of ENVS) {
        const said = `${what} ${JSON.stringify(env)}`
        const v = bijotel(
          ['verify', '--db', path, '--secret-hex', SECRET, '--json', '--range', `${lo}:${hi}`],
          env,
        )
        expect(v.code, `${said}: ${v.stderr}`).toBe(0)
        const verdict = JSON.parse(v.stdout) as { entries: number; first_seq: number; last_seq: number }
        expect([verdict.entries, verdict.first_seq, verdict.last_seq], said).toEqual([
          inRange.length,
          Number(inRange[0]!.seq),
          Number(inRange.at(-1)!.seq),
        ])
        const l = bijotel(['list', '--db', path, '--limit', '-1'], env)
        expect(l.code, `${said}: ${l.stderr}`).toBe(0)
        const listed = l.stdout
          .split('\n')
          .filter((x) => /^\d+ /.test(x))
          .map((x) => BigInt(x.split(' ')[0]!))
        expect(listed, said).toEqual(scan.map((r) => r.seq).reverse())
        for (const s of [d.key, d.key + 1, lo, hi]) {
          const i = bijotel(['inspect', '--db', path, String(s)], env)
          const row = scan.find((r) => r.seq === BigInt(s))!
          expect(i.stdout, `${said} inspect ${s}: ${i.stderr}`).toContain(row.mac)
        }
      }
    })
})
