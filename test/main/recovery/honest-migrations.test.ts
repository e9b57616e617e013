// Honest histories with schema migrations never make a finding (issue 39, round 9): appends, batches,
// a batch that fails after its pages spilled, archiving, VACUUM and checkpoints, interleaved with
// what an operator's migration does to the chain table — a column added with a DEFAULT or of REAL
// affinity, a column dropped (every row rewritten), the table rebuilt with seq a plain column or
// WITHOUT ROWID — which the search now reads (through the plain view, and in the reference's layout
// too). Verified with every key, without the archive segments and with them: no finding, VALID, and
// no proven row called deleted or an earlier version.
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng } from '../reliability/chainkit'
import { copyWithSideFiles } from '../testing/fixtures'
import { caseFolder, CHAIN_DDL, openWriter, version, type RowVersion } from '../testing/sealed-writer'
import { expectNoFinding, segmentRuns } from './no-finding'

type Step = 'append' | 'batch' | 'failed-batch' | 'archive' | 'vacuum' | 'checkpoint' | Migration
type Migration = 'add-default' | 'add-real' | 'drop-column' | 'seq-plain' | 'without-rowid'
const STEPS: Step[] = ['append', 'batch', 'failed-batch', 'archive', 'vacuum', 'checkpoint']
const MIGRATIONS: Migration[] = ['add-default', 'add-real', 'drop-column', 'seq-plain', 'without-rowid']

/** Inserts `v` naming only the columns the table still has (a dropped one is left out). */
function insertInto(db: Database.Database, v: RowVersion): void {
  const have = new Set((db.pragma('table_info(chain)') as { name: string }[]).map((c) => c.name))
  const all: [string, unknown][] = [
    ['seq', v.seq],
    ['timestamp_ns', v.ts],
    ['trace_id', v.trace],
    ['span_id', v.span],
    ['span_name', v.name],
    ['span_kind', v.kind],
    ['canonical_body', v.body],
    ['canonical_hash', v.canonical],
    ['prev_hash', v.prev],
    ['hmac_hash', v.hmac],
    ['semantic_body_hash', v.sem],
  ]
  const cols = all.filter(([c]) => have.has(c))
  db.prepare(
    `INSERT INTO chain (${cols.map(([c]) => c).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
  ).run(...cols.map(([, x]) => x))
}

function migrate(db: Database.Database, m: Migration): void {
  const rebuild = (seq: string, options = ''): void => {
    const cols = (db.pragma('table_info(chain)') as { name: string }[]).map((c) => c.name).join(', ')
    const ddl = CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'rebuilt').replace(
      'seq INTEGER PRIMARY KEY AUTOINCREMENT',
      `seq ${seq}`,
    )
    db.transaction(() => {
      db.exec('DROP INDEX IF EXISTS idx_chain_trace; DROP INDEX IF EXISTS idx_chain_semhash')
      db.exec(ddl + options)
      db.exec(`INSERT INTO rebuilt (${cols}) SELECT ${cols} FROM chain`)
      db.exec('DROP TABLE chain; ALTER TABLE rebuilt RENAME TO chain')
    })()
  }
  const has = (c: string): boolean =>
    (db.pragma('table_info(chain)') as { name: string }[]).some((x) => x.name === c)
  switch (m) {
    case 'add-default':
      if (!has('tokens')) db.exec('ALTER TABLE chain ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0')
      break
    case 'add-real':
      if (!has('cost')) db.exec('ALTER TABLE chain ADD COLUMN cost REAL')
      break
    case 'drop-column':
      if (has('semantic_body_hash'))
        db.exec('DROP INDEX IF EXISTS idx_chain_semhash; ALTER TABLE chain DROP COLUMN semantic_body_hash')
      break
    case 'seq-plain':
      if (!has('tokens') && !has('cost') && has('semantic_body_hash')) rebuild('INTEGER NOT NULL')
      break
    case 'without-rowid':
      if (!has('tokens') && !has('cost') && has('semantic_body_hash'))
        rebuild('INTEGER PRIMARY KEY', ' WITHOUT ROWID')
      break
  }
}

function history(
  seed: number,
  journal: 'wal' | 'delete',
): { db: string; keys: Buffer[]; segments: string[]; log: string[]; cleanup(): void } {
  const rng = new Rng(seed)
  const key = rng.bytes(32)
  const pageSize = [512, 1024, 4096, 2048][seed % 4]!
  const f = caseFolder('bijotel-honest-migrations-')
  const log = [`${journal} p${pageSize}`]
  const segments: string[] = []
  const live = new Map<bigint, RowVersion>()
  const db = openWriter(f.work, { pageSize, journal })
  try {
    db.exec(CHAIN_DDL)
    let prev = GENESIS
    let seq = 1n
    const add = (n: number, one: boolean): void => {
      const put = (): void => {
        for (let i = 0; i < n; i++) {
          const v = version(rng, key, seq, prev, 40 + Math.floor(rng.next() * 400), 'row')
          insertInto(db, v)
          live.set(seq++, v)
          prev = v.hmac
        }
      }
      if (one) db.transaction(put)()
      else
        for (let i = 0; i < n; i++)
          db.transaction(() => {
            const v = version(rng, key, seq, prev, 40 + Math.floor(rng.next() * 400), 'row')
            insertInto(db, v)
            live.set(seq++, v)
            prev = v.hmac
          })()
    }
    const steps: Step[] = ['batch', MIGRATIONS[seed % MIGRATIONS.length]!]
    for (let i = 0; i < 6; i++) {
      const pool = rng.next() < 0.35 ? MIGRATIONS : STEPS
      steps.push(pool[Math.floor(rng.next() * pool.length)]!)
    }
    steps.push('append')
    for (const step of steps) {
      switch (step) {
        case 'append':
          add(1 + Math.floor(rng.next() * 5), false)
          break
        case 'batch':
          add(10 + Math.floor(rng.next() * 30), true)
          break
        case 'failed-batch': {
          db.pragma('cache_size = 5')
          let p = prev
          try {
            db.transaction(() => {
              for (let i = 0; i < 10 + Math.floor(rng.next() * 30); i++) {
                const v = version(rng, key, seq + BigInt(i), p, 300, 'batch')
                insertInto(db, v)
                p = v.hmac
              }
              throw new Error('writer failed')
            })()
          } catch {
            // rolled back: the writer goes on from its last committed row
          }
          db.pragma('cache_size = -2000')
          break
        }
        case 'archive': {
          const seqs = [...live.keys()].sort((a, b) => (a < b ? -1 : 1))
          if (seqs.length < 6) break
          const cut = seqs[Math.floor(seqs.length / 3)]!
          const path = `${f.dir}/segment-${segments.length + 1}.db`
          const s = new Database(path)
          s.exec(CHAIN_TABLE_DDL)
          s.transaction(() => {
            for (const q of seqs)
              if (q < cut) {
                insertInto(s, live.get(q)!)
                live.delete(q)
              }
          })()
          s.close()
          db.prepare('DELETE FROM chain WHERE seq < ?').run(cut)
          segments.push(path)
          break
        }
        case 'vacuum':
          db.exec('VACUUM')
          break
        case 'checkpoint':
          if (journal === 'wal') db.pragma('wal_checkpoint(PASSIVE)')
          break
        default:
          migrate(db, step)
      }
      log.push(step)
    }
    copyWithSideFiles(f.work, f.evidence)
  } finally {
    db.close()
  }
  return { db: f.evidence, keys: [key], segments, log, cleanup: f.cleanup }
}

describe('honest histories with schema migrations make no finding', () => {
  for (let n = 0; n < Number(process.env.BIJOTEL_MIGRATION_CASES ?? 20); n++) {
    const journal = n % 2 === 0 ? 'wal' : 'delete'
    it(`#${n} ${journal}`, async () => {
      const g = history(0x3a9 + n, journal)
      try {
        await expectNoFinding(g, await segmentRuns(g.segments, false))
        // The migrations no longer switch the search off: these histories are searched.
        const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
        const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
        expect(verdict.recovery?.searched, `${g.log.join(', ')}: ${verdict.recovery?.note}`).toBe(true)
      } finally {
        g.cleanup()
      }
    })
  }
})
