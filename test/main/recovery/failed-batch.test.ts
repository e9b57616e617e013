// An honest writer's failed batch (issue 39, honest histories): in WAL mode a transaction of many
// sealed rows spills its pages to the -wal, then fails and rolls back; the writer may go on with a
// few rows of its own. SQLite writes such spilled frames with zero salts and checksums (wal.c
// walEncodeFrame, iReCksum) until a commit rewrites them, so what is left of the batch was never
// committed: it is `uncommitted`, never a truncation, a deletion or a rewrite. Generated over page
// sizes, batch sizes and how many rows follow; the evidence is copied while the writer holds the
// file open, as a live service's files are taken.
import { copyFileSync, existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { GENESIS, Rng } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, insert, openWriter, version } from '../testing/sealed-writer'

const CASES = [
  { pageSize: 1024, batch: 60, after: 0 },
  { pageSize: 1024, batch: 120, after: 2 },
  { pageSize: 512, batch: 80, after: 0 },
  { pageSize: 512, batch: 80, after: 1 },
  { pageSize: 4096, batch: 200, after: 0 },
  { pageSize: 2048, batch: 150, after: 3 },
]

describe('a failed batch leaves no finding', () => {
  for (const [n, c] of CASES.entries())
    it(`p${c.pageSize} batch ${c.batch}, ${c.after} row(s) after`, async () => {
      const rng = new Rng(0xba7c + n)
      const key = rng.bytes(32)
      const f = caseFolder('bijotel-failed-batch-')
      try {
        const db = openWriter(f.work, { pageSize: c.pageSize, journal: 'wal' })
        db.exec(CHAIN_DDL)
        let prev = GENESIS
        let seq = 1n
        const append = (tag: string): void => {
          const v = version(rng, key, seq++, prev, 200, tag)
          db.transaction(() => insert(db, v))()
          prev = v.hmac
        }
        for (let i = 0; i < 30; i++) append('original')
        db.pragma('cache_size = 10')
        let p = prev
        try {
          db.transaction(() => {
            for (let i = 0; i < c.batch; i++) {
              const v = version(rng, key, seq + BigInt(i), p, 200, 'batch')
              insert(db, v)
              p = v.hmac
            }
            throw new Error('writer failed')
          })()
        } catch {
          // rolled back
        }
        for (let i = 0; i < c.after; i++) append('after')
        copyFileSync(f.work, f.evidence)
        if (existsSync(`${f.work}-wal`)) copyFileSync(`${f.work}-wal`, `${f.evidence}-wal`)
        db.close()
        const keys = [{ index: 0, encoding: 'hex' as const, bytes: key }]
        const { verdict } = await verifyFile(f.evidence, keys, { recover: true, workers: 1 })
        expect(
          verdict.findings.map((x) => `${x.kind} ${x.from_seq}-${x.to_seq}`),
          JSON.stringify(verdict.recovery),
        ).toEqual([])
        expect(verdict.valid).toBe(true)
        for (const r of verdict.recovered ?? [])
          expect(['deleted', 'superseded']).not.toContain(r.key_index !== null ? r.status : 'none')
      } finally {
        f.cleanup()
      }
    })
})
