// Archive segments given prove forks of the live chain (issue 39): a segment row a candidate key
// reproduces, sealed after a live row (its sealed prev_hash), where the live chain holds another row
// or none before its head, proves a rewrite or a deletion — even when the live file keeps no remnant
// (VACUUM). Before, segments only named recovered rows `archived`: a key holder's reseal, a middle
// row deleted and the rest renumbered, or rows cut with the rest relinked read `Chain VALID` although
// the segment handed over held the sealed originals. Honest segments (the writer's archive, a copy of
// the live chain taken earlier or later, another chain under the same key, the same segment twice, in
// either order) prove nothing. Generated over page sizes, journal modes, attacks and seeds.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng, seal } from '../reliability/chainkit'
import { copyWithSideFiles } from '../testing/fixtures'
import { CHAIN_DDL, caseFolder, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

type Attack = 'none' | 'later-copy' | 'other-chain' | 'reseal' | 'delete-renumber' | 'delete-gap'
const ATTACKS: Attack[] = ['none', 'later-copy', 'other-chain', 'reseal', 'delete-renumber', 'delete-gap']

/** A segment file holding `rows` (as the writer's archive writes one). */
function segmentOf(path: string, rows: RowVersion[]): string {
  const s = new Database(path)
  s.exec(CHAIN_TABLE_DDL)
  s.transaction(() => rows.forEach((v) => insert(s, v)))()
  s.close()
  return path
}

/** A chain of `n` rows under `key` from GENESIS. */
function rowsOf(rng: Rng, key: Buffer, n: number): RowVersion[] {
  const out: RowVersion[] = []
  let prev = GENESIS
  for (let q = 1n; q <= BigInt(n); q++) {
    const v = version(rng, key, q, prev, 40 + Math.floor(rng.next() * 400), 'row')
    out.push(v)
    prev = v.hmac
  }
  return out
}

/** Rows resealed from index `from` on, after `prev`, renumbered from `seq`. */
function resealed(key: Buffer, rows: RowVersion[], prev: string, seq: bigint): RowVersion[] {
  return rows.map((v, i) => {
    const r = { ...v, seq: seq + BigInt(i), prev, hmac: seal(key, prev, v.canonical) }
    prev = r.hmac
    return r
  })
}

interface Case {
  attack: Attack
  journal: 'wal' | 'delete'
  pageSize: number
  vacuum: boolean
  seed: number
}

const CASES: Case[] = []
for (const attack of ATTACKS)
  for (const [journal, pageSize] of [
    ['delete', 512],
    ['wal', 1024],
    ['delete', 4096],
    ['wal', 4096],
  ] as const)
    for (const vacuum of [true, false])
      CASES.push({ attack, journal, pageSize, vacuum, seed: 0x5e9 + CASES.length })

describe('archive segments prove forks of the live chain, and honest ones prove nothing', () => {
  for (const c of CASES)
    it(`${c.attack}, ${c.journal} p${c.pageSize}${c.vacuum ? ', vacuumed' : ''} (seed ${c.seed})`, async () => {
      const rng = new Rng(c.seed)
      const key = rng.bytes(32)
      const { dir, work, evidence, cleanup } = caseFolder('bijotel-segment-forks-')
      try {
        const n = 25 + Math.floor(rng.next() * 30)
        const orig = rowsOf(rng, key, n)
        const k = 3 + Math.floor(rng.next() * (n - 8)) // the first seq the attack touches
        const m = k + Math.floor(rng.next() * (n - k)) // the segment: rows 1..m of the original
        const seg = join(dir, 'segment-1.db')
        let live = orig
        let expected: { rewritten: number[]; deleted: number[] } = { rewritten: [], deleted: [] }
        const range = (a: number, b: number): number[] =>
          Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i)
        if (c.attack === 'reseal') {
          const changed = version(rng, key, BigInt(k), orig[k - 2]!.hmac, 100, 'resealed')
          live = [
            ...orig.slice(0, k - 1),
            ...resealed(key, [changed, ...orig.slice(k)], orig[k - 2]!.hmac, BigInt(k)),
          ]
          expected = { rewritten: range(k, m), deleted: [] }
        } else if (c.attack === 'delete-renumber') {
          live = [...orig.slice(0, k - 1), ...resealed(key, orig.slice(k), orig[k - 2]!.hmac, BigInt(k))]
          expected = { rewritten: range(k, Math.min(m, n - 1)), deleted: [] }
        } else if (c.attack === 'delete-gap') {
          const d = 1 + Math.floor(rng.next() * 3)
          const after = resealed(key, orig.slice(k - 1 + d), orig[k - 2]!.hmac, BigInt(k + d))
          live = [...orig.slice(0, k - 1), ...after]
          expected = { deleted: range(k, Math.min(m, k + d - 1)), rewritten: range(k + d, m) }
        }
        // The file as an honest writer, then the insider's SQL, leaves it.
        const db = openWriter(work, { pageSize: c.pageSize, journal: c.journal })
        db.exec(CHAIN_DDL)
        db.transaction(() => orig.forEach((v) => insert(db, v)))()
        if (c.attack !== 'none' && c.attack !== 'later-copy' && c.attack !== 'other-chain') {
          db.transaction(() => {
            db.prepare('DELETE FROM chain WHERE seq >= ?').run(k)
            live.slice(k - 1).forEach((v) => insert(db, v))
          })()
        }
        if (c.vacuum) {
          if (c.journal === 'wal') db.pragma('wal_checkpoint(TRUNCATE)')
          db.exec('VACUUM')
        }
        db.close()
        copyWithSideFiles(work, evidence)
        let segRows = orig.slice(0, m)
        if (c.attack === 'later-copy') {
          // The live chain went on after the evidence was taken; the segment is a copy of it then.
          let prev = orig.at(-1)!.hmac
          const more = Array.from({ length: 5 }, (_, i) => {
            const v = version(rng, key, BigInt(n + 1 + i), prev, 80, 'later')
            prev = v.hmac
            return v
          })
          segRows = [...orig, ...more]
        }
        if (c.attack === 'other-chain') segRows = rowsOf(rng, key, m)
        segmentOf(seg, segRows)
        const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: key }]
        for (const paths of [[seg], [seg, seg]]) {
          const segments = await readSegments(paths)
          const { verdict } = await verifyFile(evidence, keys, { recover: true, workers: 1, segments })
          const what = `${c.attack} k=${k} m=${m} n=${n}: ${JSON.stringify(verdict.findings)}`
          const seqsOf = (kind: string): number[] =>
            verdict.findings.filter((f) => f.kind === kind).flatMap((f) => range(f.from_seq, f.to_seq))
          if (expected.rewritten.length + expected.deleted.length === 0) {
            expect(verdict.findings, what).toEqual([])
            expect(verdict.valid, what).toBe(true)
            continue
          }
          expect(verdict.valid, what).toBe(false)
          // Every seq the segment proves is claimed, and nothing outside what the attack touched.
          for (const q of expected.rewritten) expect(seqsOf('rewritten'), what).toContain(q)
          for (const q of expected.deleted) expect(seqsOf('deleted'), what).toContain(q)
          for (const f of verdict.findings) {
            expect(f.from_seq, what).toBeGreaterThanOrEqual(k)
            if (f.segments) expect(f.segments, what).toEqual([seg])
          }
          expect(
            // …and names the other cause a fork has: a copy of this chain continued under the key.
            verdict.notices?.some(
              (x) =>
                x.includes(`archive segment ${seg} holds rows sealed`) &&
                x.includes('continued under the same key'),
            ),
            what,
          ).toBe(true)
          // A ranged verdict answers for its range only: before the first seq touched, nothing.
          const before = await verifyFile(evidence, keys, {
            recover: true,
            workers: 1,
            segments,
            range: { seq_end: k - 1 },
          })
          expect(
            before.verdict.findings.filter((f) => f.segments),
            what,
          ).toEqual([])
        }
      } finally {
        cleanup()
      }
    })
})
