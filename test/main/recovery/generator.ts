// Test kit: recovery cases made on demand. Chains are written with better-sqlite3 (secure_delete
// off, as SQLite's default build and better-sqlite3 have it) in a temporary folder, in either
// journal mode and any page size, with seqs whose rowid varints take 1 to 9 bytes and bodies that
// overflow small pages; then rows are deleted or rewritten and resealed as an insider holding the
// key would, and the files are taken either live (copied while the writer still holds them: no
// checkpoint) or after every connection closed. The kit keeps every version of every row it ever
// wrote: the ground truth a recovered row is checked against.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { GENESIS, Rng } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, openWriter, version, insert, type RowVersion } from '../testing/sealed-writer'

export type Scenario =
  | { kind: 'clean' }
  /** Checkpoints that restart the WAL between batches: frames of earlier generations stay behind. */
  | { kind: 'clean-generations' }
  /**
   * `vacuum`: a VACUUM after the deletion. In a live WAL capture the database shrank, but the frames
   * of its older pages — the deleted rows' overflow pages among them — stay in the WAL.
   */
  | { kind: 'tail-delete'; count: number; vacuum?: boolean }
  | { kind: 'middle-delete'; at: number; count: number; vacuum?: boolean }
  | { kind: 'prefix-delete'; count: number }
  /**
   * `checkpointed`: the rows reach the database file first, so the old versions lie on its pages the WAL
   * supersedes; `restarted`: the WAL is restarted after the rewrite, so they lie in an earlier generation's frames.
   */
  | { kind: 'rewrite'; count: number; checkpointed?: boolean; restarted?: boolean }
  /** Rows deleted, then the WAL checkpointed and restarted by a short transaction: the rows stay in frames of the earlier generation. */
  | { kind: 'old-generation-delete'; at: number; count: number }

export interface GenCase {
  name: string
  pageSize: number
  journal: 'wal' | 'delete'
  rows: number
  firstSeq: bigint
  /** Bytes of padding in each body (bodies overflow when they exceed a page's local payload). */
  pad: number
  scenario: Scenario
  /** Copy the files while the writer still holds them (WAL only), or after every connection closed. */
  live: boolean
  /** auto_vacuum from the file's creation (default NONE): the pointer map, pages moved at commit. */
  autoVacuum?: 'FULL' | 'INCREMENTAL'
}

export interface Generated {
  /** The evidence: the chain file the case leaves (its -wal beside it when live). */
  db: string
  key: Buffer
  /** Final live rows by seq. */
  live: Map<bigint, RowVersion>
  /** Every version that is no longer live (deleted rows, earlier versions of rewritten ones). */
  removed: RowVersion[]
  /** The seqs the scenario deleted or rewrote. */
  affected: Set<bigint>
  cleanup(): void
}

const UPDATE = `UPDATE chain SET canonical_body = ?, canonical_hash = ?, prev_hash = ?, hmac_hash = ? WHERE seq = ?`

/** Write, tamper and capture one case in a fresh temporary folder. */
export function generate(c: GenCase, seed: number): Generated {
  const rng = new Rng(seed)
  const key = rng.bytes(32)
  const { work, evidence, cleanup } = caseFolder('bijotel-recgen-')
  const live = new Map<bigint, RowVersion>()
  const removed: RowVersion[] = []
  const affected = new Set<bigint>()
  const db = openWriter(work, c)
  const second = (): Database.Database => {
    const b = new Database(work)
    b.defaultSafeIntegers(true)
    return b
  }
  try {
    db.exec(CHAIN_DDL)
    // The schema reaches the database file (a service's chain.db has been checkpointed at least once).
    db.pragma('wal_checkpoint(TRUNCATE)')
    let prev = c.firstSeq === 1n ? GENESIS : rng.hex(64)
    let next = c.firstSeq
    const append = (n: number, into: Database.Database = db): void => {
      for (let i = 0; i < n; i++) {
        const seq = next++
        const v = version(rng, key, seq, prev, c.pad, 'original')
        into.transaction(() => insert(into, v))()
        live.set(seq, v)
        prev = v.hmac
      }
    }
    const seqs = (): bigint[] => [...live.keys()].sort((a, b) => (a < b ? -1 : 1))
    const drop = (into: Database.Database, from: bigint, to: bigint): void => {
      into.prepare('DELETE FROM chain WHERE seq >= ? AND seq <= ?').run(from, to)
      for (const s of seqs())
        if (s >= from && s <= to) {
          removed.push(live.get(s)!)
          affected.add(s)
          live.delete(s)
        }
    }
    const s = c.scenario
    if (s.kind === 'clean-generations') {
      for (let g = 0; g < 3; g++) {
        append(Math.ceil(c.rows / 3))
        db.pragma('wal_checkpoint(RESTART)')
      }
      append(1)
    } else {
      append(c.rows)
    }
    const all = seqs()
    const other = s.kind === 'tail-delete' ? second() : null
    switch (s.kind) {
      case 'tail-delete':
        drop(other!, all[all.length - s.count]!, all[all.length - 1]!)
        if (s.vacuum) other!.exec('VACUUM')
        break
      case 'middle-delete':
        drop(db, all[s.at]!, all[s.at + s.count - 1]!)
        if (s.vacuum) db.exec('VACUUM')
        break
      case 'prefix-delete':
        drop(db, all[0]!, all[s.count - 1]!)
        break
      case 'old-generation-delete':
        drop(db, all[s.at]!, all[s.at + s.count - 1]!)
        db.pragma('wal_checkpoint(RESTART)')
        append(1)
        break
      case 'rewrite': {
        // A key holder rewrites the last rows and reseals them, one transaction each (the live chain verifies).
        if (s.checkpointed) db.pragma('wal_checkpoint(RESTART)')
        let p = live.get(all[all.length - s.count - 1]!)?.hmac ?? GENESIS
        for (const seq of all.slice(-s.count)) {
          const old = live.get(seq)!
          const v = {
            ...version(rng, key, seq, p, c.pad, 'rewritten'),
            trace: old.trace,
            span: old.span,
            sem: old.sem,
          }
          db.transaction(() => db.prepare(UPDATE).run(v.body, v.canonical, v.prev, v.hmac, seq))()
          removed.push(old)
          affected.add(seq)
          live.set(seq, v)
          p = v.hmac
        }
        if (s.restarted) {
          db.pragma('wal_checkpoint(RESTART)')
          append(1)
        }
        break
      }
      default:
        break
    }
    if (c.live) {
      copyFileSync(work, evidence)
      if (existsSync(`${work}-wal`)) copyFileSync(`${work}-wal`, `${evidence}-wal`)
    }
    other?.close()
  } finally {
    db.close()
  }
  if (!c.live) {
    copyFileSync(work, evidence)
    if (existsSync(`${work}-wal`)) copyFileSync(`${work}-wal`, `${evidence}-wal`)
  }
  return {
    db: evidence,
    key,
    live,
    removed,
    affected,
    cleanup,
  }
}

/** SQLite's serial type for an integer value (file format 4: 0 and 1 take no bytes). */
function intType(v: bigint): [number, number] {
  if (v === 0n) return [8, 0]
  if (v === 1n) return [9, 0]
  for (const [t, n] of [
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 4],
    [5, 6],
  ] as const) {
    const lim = 1n << BigInt(8 * n - 1)
    if (v >= -lim && v < lim) return [t, n]
  }
  return [6, 8]
}

function varint(v: number): number[] {
  const out: number[] = []
  do {
    out.unshift((v & 0x7f) | (out.length ? 0x80 : 0))
    v = Math.floor(v / 128)
  } while (v > 0)
  return out
}

/**
 * The record SQLite writes for a row version (file-format §2.1), without its header-size byte (a
 * freeblock header may have overwritten it): if these bytes are in the files, the row's whole
 * record survived there.
 */
export function recordTail(v: RowVersion): Buffer {
  const [tsType, tsLen] = intType(v.ts)
  const texts = [v.trace, v.span, v.name, v.kind]
  const types = [
    0,
    tsType,
    ...texts.map((t) => 13 + 2 * Buffer.byteLength(t)),
    12 + 2 * v.body.length,
    141,
    141,
    141,
    141,
  ]
  const ts = Buffer.alloc(8)
  ts.writeBigInt64BE(v.ts)
  const values = Buffer.concat([
    ts.subarray(8 - tsLen),
    ...texts.map((t) => Buffer.from(t)),
    v.body,
    Buffer.from(v.canonical + v.prev + v.hmac + v.sem, 'latin1'),
  ])
  return Buffer.concat([Buffer.from(types.flatMap(varint)), values])
}

/** Whether the whole record of `v` is in the evidence files' bytes. */
export function survives(g: Generated, v: RowVersion): boolean {
  const needle = recordTail(v)
  for (const f of [g.db, `${g.db}-wal`]) if (existsSync(f) && readFileSync(f).includes(needle)) return true
  return false
}
