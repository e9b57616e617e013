// Test kit: seeded chain folders after honest churn, for the recovery differential
// (./recovery-differential.ts). A writer opened as a service's (./sealed-writer.ts) appends sealed
// rows, then a random program of operations runs: more appends, DELETEs of ranges, UPDATEs that
// reseal a row with a body of another size (its cell moves, the old one becomes a freeblock or
// leaves a page), filler tables created and dropped (freelist trunks and leaves), WAL checkpoints
// and restarts — never VACUUM. The files are taken while the writer still holds them (a live WAL:
// no checkpoint at close) or after it closed, or caught mid-transaction with a hot journal.
import { copyWithSideFiles } from './fixtures'
import { GENESIS, Rng } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, insert, openWriter, version, type RowVersion } from './sealed-writer'

export const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536] as const

export interface ChurnCase {
  seed: number
  pageSize: number
  journal: 'wal' | 'delete'
  /** Copied while the writer holds the files (a live WAL), after it closed, or mid-transaction (hot journal). */
  take: 'live' | 'closed' | 'hot'
  /** Body padding: small records, or bodies that overflow the page. */
  pad: number
  ops: string[]
}

export interface Churned {
  c: ChurnCase
  db: string
  key: Buffer
  /** The rows the writer left committed, by seq. */
  live: Map<bigint, RowVersion>
  cleanup(): void
}

/** The case of `seed`: page size, journal mode, how the files are taken, bodies. */
export function churnCase(seed: number): ChurnCase {
  const rng = new Rng(seed)
  const pageSize = rng.pick([...PAGE_SIZES])
  const journal = rng.chance(0.5) ? 'wal' : 'delete'
  const take = journal === 'wal' ? (rng.chance(0.6) ? 'live' : 'closed') : rng.chance(0.3) ? 'hot' : 'closed'
  // Overflow on small pages and sometimes on large ones; small records otherwise.
  const pad = rng.chance(0.4) ? rng.int(pageSize / 2, pageSize * 2) : rng.int(20, 300)
  return { seed, pageSize, journal, take, pad, ops: [] }
}

/** Write the churned chain of `c` in a fresh temporary folder. */
export function churn(c: ChurnCase): Churned {
  const rng = new Rng(c.seed * 7919 + 1)
  const key = rng.bytes(32)
  const folder = caseFolder('bijotel-churn-')
  const { work, evidence } = folder
  const db = openWriter(work, c)
  const live = new Map<bigint, RowVersion>()
  const ops = c.ops
  let prev = GENESIS
  let next = 1n
  let fillers = 0
  const seqs = (): bigint[] => [...live.keys()].sort((a, b) => (a < b ? -1 : 1))
  const append = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const v = version(rng, key, next++, prev, c.pad + rng.int(0, 40), 'original')
      db.transaction(() => insert(db, v))()
      live.set(v.seq, v)
      prev = v.hmac
    }
  }
  const take = (): void => copyWithSideFiles(work, evidence)
  try {
    db.exec(CHAIN_DDL)
    append(rng.int(8, 40))
    for (let k = 0, n = rng.int(2, 7); k < n; k++) {
      const all = seqs()
      switch (rng.int(0, 5)) {
        case 0:
          ops.push('append')
          append(rng.int(1, 25))
          break
        case 1: {
          if (all.length < 4) break
          const from = rng.int(0, all.length - 2)
          const to = Math.min(all.length - 1, from + rng.int(0, 5))
          ops.push(`delete ${all[from]}-${all[to]}`)
          db.prepare('DELETE FROM chain WHERE seq >= ? AND seq <= ?').run(all[from]!, all[to]!)
          for (const s of all.slice(from, to + 1)) live.delete(s)
          break
        }
        case 2: {
          // A key holder reseals a row with a body of another size: the cell moves.
          if (all.length === 0) break
          const s = rng.pick(all)
          const old = live.get(s)!
          const v = version(rng, key, s, old.prev, rng.int(5, c.pad * 2 + 50), 'resealed')
          ops.push(`update ${s}`)
          db.prepare(
            'UPDATE chain SET canonical_body = ?, canonical_hash = ?, hmac_hash = ? WHERE seq = ?',
          ).run(v.body, v.canonical, v.hmac, s)
          live.set(s, { ...old, body: v.body, canonical: v.canonical, hmac: v.hmac })
          break
        }
        case 3: {
          const name = `filler${fillers++}`
          ops.push(`filler ${name}`)
          db.exec(`CREATE TABLE ${name} (b BLOB)`)
          const blob = db.prepare(`INSERT INTO ${name} VALUES (randomblob(?))`)
          for (let i = 0, n = rng.int(2, 20); i < n; i++) blob.run(rng.int(10, c.pageSize * 2))
          if (rng.chance(0.6)) db.exec(`DROP TABLE ${name}`)
          break
        }
        case 4:
          if (c.journal !== 'wal') break
          ops.push('checkpoint')
          db.pragma(rng.chance(0.5) ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)')
          break
        default:
          ops.push('append')
          append(rng.int(1, 5))
      }
    }
    if (c.take === 'live') take()
    if (c.take === 'hot') {
      // A writer caught mid-transaction: pages spilled into the file, its journal hot.
      db.pragma('cache_size = 2')
      db.exec('BEGIN IMMEDIATE')
      for (let i = 0, n = rng.int(1, 6); i < n; i++)
        insert(db, version(rng, key, next + BigInt(i), prev, c.pad, 'in flight'))
      db.exec("UPDATE chain SET span_name = span_name || ' (retried)'")
      ops.push('hot journal')
      take()
      db.exec('ROLLBACK')
    }
  } finally {
    db.close()
  }
  if (c.take === 'closed') take()
  return { c, db: evidence, key, live, cleanup: folder.cleanup }
}
