// Archive segments with holes (issue 39, round 8): the writer's archive by date (reference §3.5: the
// rows with `timestamp_ns < before_ns` copied to a segment, then deleted) takes rows by their end
// time, and a row's end time need not follow its seq — a span that waited for the writer's lock is
// sealed after rows that ended later. So an honest first archive holds rows 1..a-1 and b+1..m and
// leaves a..b live; a second archive takes them. Given one segment, either order, or both, the rows a
// segment lacks between those it holds are never `deleted`: a segment proves what it holds was
// archived, nothing of a row it lacks. Generated over page sizes, journal modes, auto-vacuum modes, a key
// rotated between the archives, holes and seeds.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { GENESIS, Rng, seal, sha256 } from '../reliability/chainkit'
import { copyWithSideFiles } from '../testing/fixtures'
import { caseFolder, CHAIN_DDL, insert, openWriter, type RowVersion } from '../testing/sealed-writer'

const RANDOM = Number(process.env.BIJOTEL_HOLES_CASES ?? 16)
const BASE = Number(process.env.BIJOTEL_HOLES_SEED ?? 0x401e)
const PAGE_SIZES = [512, 1024, 4096, 8192]
const T0 = 1_764_000_000_000_000_000n
const MS = 1_000_000n

/** A row sealed under `key` after `prev` whose span ended at `ts` (its body says so, as the writer's does). */
function row(rng: Rng, key: Buffer, seq: bigint, prev: string, ts: bigint, pad: number): RowVersion {
  const body = Buffer.from(
    JSON.stringify({
      attributes: { 'gen_ai.provider.name': 'openai', note: 'hole', pad: rng.hex(pad) },
      end_time_ns: ts.toString(),
      kind: 'CLIENT',
      name: 'chat gpt-test',
      start_time_ns: (ts - 1000n).toString(),
    }),
  )
  const canonical = sha256(body)
  return {
    seq,
    ts,
    trace: rng.hex(32),
    span: rng.hex(16),
    name: 'chat gpt-test',
    kind: 'CLIENT',
    body,
    canonical,
    prev,
    hmac: seal(key, prev, canonical),
    sem: rng.hex(64),
  }
}

/** The writer's archive by date: rows ended before `before` copied to a new segment, then deleted. */
function archiveBefore(db: Database.Database, path: string, before: bigint): number {
  const rows = db.prepare('SELECT * FROM chain WHERE timestamp_ns < ? ORDER BY seq').all(before) as Record<
    string,
    unknown
  >[]
  const s = new Database(path)
  s.exec(CHAIN_TABLE_DDL)
  const cols = Object.keys(rows[0]!)
  const ins = s.prepare(`INSERT INTO chain (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
  s.transaction(() => {
    for (const r of rows) ins.run(...cols.map((c) => r[c]))
  })()
  s.close()
  db.prepare('DELETE FROM chain WHERE timestamp_ns < ?').run(before)
  return rows.length
}

describe('a segment with a hole accuses nothing of the rows it lacks', () => {
  for (let n = 0; n < RANDOM; n++) {
    const seed = BASE + n
    const rng = new Rng(seed)
    const pageSize = PAGE_SIZES[n % PAGE_SIZES.length]!
    const journal = n % 2 === 0 ? ('wal' as const) : ('delete' as const)
    const autoVacuum = (['NONE', 'FULL', 'INCREMENTAL'] as const)[n % 3]!
    const rotate = n % 4 === 1
    const total = 60 + Math.floor(rng.next() * 60)
    const m = 20 + Math.floor(rng.next() * (total / 3))
    const b = 2 + Math.floor(rng.next() * (m - 3))
    const a = Math.max(2, b - Math.floor(rng.next() * 20))
    const m2 = m + 5 + Math.floor(rng.next() * (total - m - 10))
    const shape = `${journal} p${pageSize} auto_vacuum ${autoVacuum}${rotate ? ', key rotated' : ''}`
    it(`#${n} seed ${seed} ${shape}: ${total} rows, hole ${a}-${b} in 1-${m}, then to ${m2}`, async () => {
      const g = caseFolder('bijotel-segment-holes-')
      const keyList = rotate ? [rng.bytes(32), rng.bytes(32)] : [rng.bytes(32)]
      let key = keyList[0]!
      try {
        const db = openWriter(g.work, { pageSize, journal, autoVacuum })
        db.exec(CHAIN_DDL)
        // Ends in seq order but for a..b, which ended after T1 (between m's end and m+1's): their
        // spans waited less for the lock than rows b+1..m, sealed after them.
        const t1 = T0 + BigInt(m) * MS + MS / 2n
        const endOf = (q: number): bigint => (q >= a && q <= b ? t1 + BigInt(q) : T0 + BigInt(q) * MS)
        let prev = GENESIS
        const write = (from: number, to: number): void => {
          db.transaction(() => {
            for (let q = from; q <= to; q++) {
              const v = row(rng, key, BigInt(q), prev, endOf(q), 40 + Math.floor(rng.next() * 400))
              insert(db, v)
              prev = v.hmac
            }
          })()
        }
        for (let q = 1; q <= m; q += 7) write(q, Math.min(m, q + 6))
        const s1 = join(g.dir, 'segment-1.db')
        expect(archiveBefore(db, s1, t1)).toBe(m - (b - a + 1))
        // A key rotated between the archives: later rows sealed under the new key, after the old head.
        key = keyList.at(-1)!
        write(m + 1, m2)
        const s2 = join(g.dir, 'segment-2.db')
        archiveBefore(db, s2, T0 + BigInt(m2) * MS + MS / 2n)
        write(m2 + 1, total)
        copyWithSideFiles(g.work, g.evidence)
        db.close()
        const keys: KeyMaterial[] = keyList.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
        for (const given of [[s1], [s2], [s1, s2], [s2, s1]]) {
          const segments = await readSegments(given)
          const { verdict } = await verifyFile(g.evidence, keys, { recover: true, workers: 1, segments })
          const what = `segments ${given.map((p) => p.slice(-5)).join(', ')}`
          const rows = verdict.recovered ?? []
          expect(
            rows.filter((r) => r.status === 'deleted').map((r) => r.seq),
            what,
          ).toEqual([])
          expect(
            verdict.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`),
            what,
          ).toEqual([])
          expect(verdict.valid, what).toBe(true)
          // Rows the links place before the live chain that no segment given holds are said, in a notice.
          const before = rows.filter((r) => r.status === 'before_live' && r.key_index !== null)
          if (before.length > 0)
            expect(verdict.notices?.some((x) => x.includes('in none of the archive segments given'))).toBe(
              true,
            )
          if (given.length === 2) expect(before, what).toEqual([])
        }
      } finally {
        g.cleanup()
      }
    }, 60_000)
  }
})
