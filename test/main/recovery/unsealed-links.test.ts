// A link places a recovered row only when a key proves the row that makes it (issue 39, "Placement by
// sealed links only"). Generated attacks by an insider without the key, each with a run of another
// chain's genuine rows sealed under the same key planted on the freelist: a record forged to join the
// run to a live row (its prev_hash the live row's hmac_hash, its hmac_hash the run's first prev_hash,
// or the other way round), or a live row's own hmac_hash or prev_hash edited to the run's link. Every
// page size and journal mode, rows of the run before, inside and after the live range. Whatever the
// files say, the run stays unplaced: findings lie only on the edited row and its neighbour, never
// truncated, deleted or rewritten.
import type Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

type How = 'forged-after' | 'forged-before' | 'live-hmac' | 'live-prev'

function chainOf(rng: Rng, key: Buffer, n: number, prev: string, tag: string): RowVersion[] {
  const out: RowVersion[] = []
  for (let i = 0; i < n; i++) {
    const v = version(rng, key, BigInt(i + 1), prev, 200, tag)
    out.push(v)
    prev = v.hmac
  }
  return out
}

function plant(db: Database.Database, rows: RowVersion[], rowids: bigint[]): void {
  db.exec(CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'IF NOT EXISTS chain_other'))
  const ins = db.prepare(`INSERT INTO chain_other (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
    canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
  db.transaction(() =>
    rows.forEach((v, i) =>
      ins.run(rowids[i]!, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem),
    ),
  )()
  db.exec('DROP TABLE chain_other')
}

const HOWS: How[] = ['forged-after', 'forged-before', 'live-hmac', 'live-prev']
const SHAPES = [
  { pageSize: 1024, journal: 'wal' },
  { pageSize: 4096, journal: 'delete' },
  { pageSize: 512, journal: 'delete' },
  { pageSize: 8192, journal: 'wal' },
] as const

describe('links no key seals place nothing', () => {
  let n = 0
  for (const how of HOWS)
    for (const shape of SHAPES) {
      const seed = 0x11c + n++
      it(`${how} p${shape.pageSize} ${shape.journal}`, async () => {
        const rng = new Rng(seed)
        const key = rng.bytes(32)
        const f = caseFolder('bijotel-unsealed-links-')
        try {
          const db = openWriter(f.work, shape)
          db.exec(CHAIN_DDL)
          const live = chainOf(rng, key, 30, GENESIS, 'original')
          db.transaction(() => live.forEach((v) => insert(db, v)))()
          const run = chainOf(rng, key, 6, rng.next() < 0.5 ? GENESIS : rng.hex(64), 'foreign')
          const at = 1 + Math.floor(rng.next() * 28) // 0-based index of the live row joined to
          const rowids = run.map((_, i) => BigInt([2, 12, 31][Math.floor(rng.next() * 3)]! + i))
          const edited = new Set<number>()
          if (how === 'forged-after' || how === 'forged-before') {
            const v = version(rng, rng.bytes(32), 0n, GENESIS, 50, 'forged')
            const forged =
              how === 'forged-after'
                ? { ...v, prev: live[at]!.hmac, hmac: run[0]!.prev }
                : { ...v, prev: run.at(-1)!.hmac, hmac: live[at]!.prev }
            plant(db, [...run, forged], [...rowids, 900n])
          } else {
            plant(db, run, rowids)
            if (how === 'live-hmac')
              db.prepare('UPDATE chain SET hmac_hash = ? WHERE seq = ?').run(run[0]!.prev, at + 1)
            else db.prepare('UPDATE chain SET prev_hash = ? WHERE seq = ?').run(run.at(-1)!.hmac, at + 1)
            edited.add(at + 1).add(how === 'live-hmac' ? at + 2 : at + 1)
          }
          if (shape.journal === 'wal') db.pragma('wal_checkpoint(TRUNCATE)')
          db.close()
          copyFileSync(f.work, f.evidence)
          if (existsSync(`${f.work}-wal`)) copyFileSync(`${f.work}-wal`, `${f.evidence}-wal`)
          const keys = [{ index: 0, encoding: 'hex' as const, bytes: key }]
          const { verdict } = await verifyFile(f.evidence, keys, { recover: true, workers: 1 })
          const foreign = new Set(run.map((r) => r.hmac))
          for (const r of verdict.recovered ?? [])
            if (foreign.has(r.hmac_hash)) {
              expect(r.status, `foreign row at ${r.seq}`).toBe('unplaced')
              expect(r.seq).toBeNull()
            }
          for (const fd of verdict.findings) {
            expect(['truncated', 'deleted', 'rewritten']).not.toContain(fd.kind)
            for (let s = fd.from_seq; s <= fd.to_seq; s++) expect(edited.has(s), `${fd.kind} ${s}`).toBe(true)
          }
          expect(verdict.valid).toBe(edited.size === 0)
        } finally {
          f.cleanup()
        }
      })
    }
})
