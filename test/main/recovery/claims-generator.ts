// Test kit (issue 39): histories of a chain file, honest or attacked, made on demand. Honest
// histories — appends, checkpoints and WAL restarts, VACUUM, archiving (with or without the segment
// given), a test chain cleared before the real one started in the same file, a sealed row rolled
// back, a key rotation — must make no finding. Attacks — deletions, tail truncations, reseals by a
// key holder, body edits without the key — must make findings exactly on their seqs; and genuine
// rows sealed under the same key but of another chain, planted in every free place the reader
// searches (freelist pages of a dropped table, pages past the header's page count, WAL frames of an
// earlier generation), must make none, whatever rowids they carry.
import Database from 'better-sqlite3'
import { appendFileSync, copyFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng, seal, sha256 } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

export type History =
  | 'appends-checkpoints'
  | 'vacuum'
  | 'archive-no-segment'
  | 'archive-with-segment'
  | 'chain-reset'
  | 'rollback'
  | 'rotation'
  | 'av-moves'

export type Attack = 'none' | 'delete-middle' | 'truncate-tail' | 'reseal-tail' | 'body-edit'

/**
 * Where rows of another chain sealed under the same key are planted (none: not planted). `bridge`:
 * on the freelist with a record forged without the key that links them to a live row (its prev_hash
 * a live row's hmac_hash and its hmac_hash the run's first prev_hash, or the other way round): a link
 * no key seals, which must place nothing.
 */
export type Foreign = 'none' | 'freelist' | 'past-end' | 'old-wal' | 'bridge'

export interface ClaimsCase {
  name: string
  pageSize: number
  journal: 'wal' | 'delete'
  history: History
  attack: Attack
  foreign: Foreign
  rows: number
  /**
   * auto_vacuum from the file's creation (file-format §1.3 offsets 52 and 64): with `av-moves`, the
   * chain's pages are moved into pages a dropped table freed — at its commit with FULL, by
   * incremental_vacuum with INCREMENTAL — before the attack.
   */
  autoVacuum?: 'FULL' | 'INCREMENTAL'
  /** With INCREMENTAL: incremental_vacuum run after the attack as well (the freed pages moved and cut). */
  vacuumAfter?: boolean
}

export interface ClaimsOut {
  db: string
  keys: Buffer[]
  /** Segments to give with --segment (archive-with-segment). */
  segments: string[]
  /** Seqs the attack touched: findings must lie exactly on them. */
  attacked: Set<bigint>
  /** hmac_hash of every foreign row planted. */
  foreign: Set<string>
  /** Live rows at the end, by seq. */
  live: Map<bigint, RowVersion>
  cleanup(): void
}

const FOREIGN_DDL = CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'IF NOT EXISTS chain_other')

/** Rows of another chain under `key`: from GENESIS or from a random head, `n` of them. */
function foreignRows(rng: Rng, key: Buffer, n: number, pad: number): RowVersion[] {
  let prev = rng.next() < 0.5 ? GENESIS : rng.hex(64)
  const out: RowVersion[] = []
  for (let i = 0; i < n; i++) {
    const v = version(rng, key, BigInt(i + 1), prev, pad, 'foreign')
    out.push(v)
    prev = v.hmac
  }
  return out
}

/**
 * A record forged without the key that joins the foreign run to a live row: after the head, after a
 * row in the middle, or (hmac_hash = a live row's prev_hash) before a live row, following the run's
 * last row. Its HMAC is the value the link needs, which no key reproduces.
 */
function forgedBridge(
  rng: Rng,
  run: RowVersion[],
  live: Map<bigint, RowVersion>,
  seqs: bigint[],
  pad: number,
): RowVersion {
  const v = version(rng, rng.bytes(32), 0n, GENESIS, pad, 'forged')
  const pick = Math.floor(rng.next() * 3)
  if (pick === 0) return { ...v, prev: live.get(seqs.at(-1)!)!.hmac, hmac: run[0]!.prev }
  const at = live.get(seqs[Math.floor(seqs.length / 2)]!)!
  if (pick === 1) return { ...v, prev: at.hmac, hmac: run[0]!.prev }
  return { ...v, prev: run.at(-1)!.hmac, hmac: at.prev }
}

/** Plant foreign rows with the given rowids in a side table of `db`. */
function plantTable(db: Database.Database, rows: RowVersion[], rowids: bigint[]): void {
  db.exec(FOREIGN_DDL)
  const ins = db.prepare(`INSERT INTO chain_other (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
    canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
  db.transaction(() =>
    rows.forEach((v, i) =>
      ins.run(rowids[i]!, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem),
    ),
  )()
}

/** Rowids for foreign rows: some inside the live range, some past its head (as an attacker would pick). */
function foreignRowids(rng: Rng, n: number, liveFirst: bigint, liveLast: bigint): bigint[] {
  const inside = BigInt(Math.floor(rng.next() * Number(liveLast - liveFirst + 1n))) + liveFirst
  const half = Math.ceil(n / 2)
  const after = liveLast + 1n > inside + BigInt(half) ? liveLast + 1n : inside + BigInt(half)
  const past = after + BigInt(Math.floor(rng.next() * 3))
  return Array.from({ length: n }, (_, i) => (i < half ? inside + BigInt(i) : past + BigInt(i - half)))
}

/** Write one case in a fresh temporary folder. */
export function generateClaims(c: ClaimsCase, seed: number): ClaimsOut {
  const rng = new Rng(seed)
  const key = rng.bytes(32)
  const key2 = rng.bytes(32)
  const { dir, work, evidence, cleanup } = caseFolder('bijotel-claims-')
  const live = new Map<bigint, RowVersion>()
  const attacked = new Set<bigint>()
  const foreign = new Set<string>()
  const segments: string[] = []
  const pad = c.pageSize <= 1024 ? 700 : 200
  const db = openWriter(work, c)
  db.exec(CHAIN_DDL)
  db.pragma('wal_checkpoint(TRUNCATE)')
  let prev = GENESIS
  let sealWith = key
  const append = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const seqRow = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'chain'").get() as
        { seq: bigint } | undefined
      const seq = (seqRow?.seq ?? 0n) + 1n
      const v = version(rng, sealWith, seq, prev, pad, 'original')
      db.transaction(() => insert(db, v))()
      live.set(seq, v)
      prev = v.hmac
    }
  }
  const sorted = (): bigint[] => [...live.keys()].sort((a, b) => (a < b ? -1 : 1))
  const drop = (from: bigint, to: bigint, mark: boolean): void => {
    db.prepare('DELETE FROM chain WHERE seq >= ? AND seq <= ?').run(from, to)
    for (const s of sorted())
      if (s >= from && s <= to) {
        live.delete(s)
        if (mark) attacked.add(s)
      }
  }
  try {
    // The honest history.
    switch (c.history) {
      case 'chain-reset': {
        // A test chain written and cleared before the real chain starts (AUTOINCREMENT goes on).
        append(8)
        drop(1n, 8n, false)
        prev = GENESIS
        live.clear()
        append(c.rows)
        break
      }
      case 'rotation':
        append(Math.floor(c.rows / 2))
        sealWith = key2
        append(c.rows - Math.floor(c.rows / 2))
        break
      case 'rollback': {
        append(Math.floor(c.rows / 2))
        // A sealed row whose transaction fails: it leaves no row (reference §1.2).
        const seq = sorted().at(-1)! + 1n
        const v = version(rng, key, seq, prev, pad, 'rolled back')
        try {
          db.transaction(() => {
            insert(db, v)
            throw new Error('writer failed')
          })()
        } catch {
          // rolled back
        }
        append(c.rows - Math.floor(c.rows / 2))
        break
      }
      case 'av-moves': {
        // A second table's pages interleaved with the chain's, then dropped: auto-vacuum moves the
        // chain's last pages into the freed ones (the rows' cells move page to page).
        db.exec('CREATE TABLE filler (x BLOB)')
        for (let i = 0; i < c.rows; i++) {
          append(1)
          db.prepare('INSERT INTO filler VALUES (?)').run(rng.bytes(pad))
        }
        db.exec('DROP TABLE filler')
        if (c.autoVacuum === 'INCREMENTAL') db.pragma('incremental_vacuum')
        append(2)
        break
      }
      case 'appends-checkpoints':
        for (let g = 0; g < 3; g++) {
          append(Math.ceil(c.rows / 3))
          if (c.journal === 'wal') db.pragma('wal_checkpoint(RESTART)')
        }
        break
      default:
        append(c.rows)
    }
    if (c.history === 'archive-no-segment' || c.history === 'archive-with-segment') {
      // The writer's archiving: rows before a seq copied to a segment, then deleted (reference §3.5).
      const cut = sorted()[Math.floor(c.rows / 3)]!
      const seg = join(dir, 'segment.db')
      const s = new Database(seg)
      s.exec(CHAIN_TABLE_DDL)
      const ins = s.prepare(`INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
        canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
      s.transaction(() => {
        for (const q of sorted())
          if (q < cut) {
            const v = live.get(q)!
            ins.run(v.seq, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem)
          }
      })()
      s.close()
      drop(1n, cut - 1n, false)
      if (c.history === 'archive-with-segment') segments.push(seg)
    }
    if (c.history === 'vacuum') {
      // The file rebuilt by VACUUM (pages renumbered, free space gone), then the writer goes on.
      db.exec('VACUUM')
      append(3)
    }
    // Foreign rows in a side table, then dropped (freelist) — or, for old-wal, in WAL frames of an
    // earlier generation.
    const seqs = sorted()
    if (c.foreign === 'freelist' || c.foreign === 'old-wal' || c.foreign === 'bridge') {
      const rows = foreignRows(rng, key, 10, pad)
      for (const r of rows) foreign.add(r.hmac)
      if (c.foreign === 'bridge') rows.push(forgedBridge(rng, rows, live, seqs, pad))
      plantTable(db, rows, foreignRowids(rng, rows.length, seqs[0]!, seqs.at(-1)!))
      if (c.foreign === 'old-wal' && c.journal === 'wal') {
        db.exec('DELETE FROM chain_other')
        db.pragma('wal_checkpoint(RESTART)')
        append(1)
      } else {
        db.exec('DROP TABLE chain_other')
      }
    }
    // The attack.
    const now = sorted()
    switch (c.attack) {
      case 'delete-middle': {
        const at = Math.floor(now.length / 2)
        drop(now[at]!, now[at + 2]!, true)
        break
      }
      case 'truncate-tail':
        drop(now.at(-3)!, now.at(-1)!, true)
        break
      case 'reseal-tail': {
        let p = live.get(now.at(-4)!)!.hmac
        for (const q of now.slice(-3)) {
          const old = live.get(q)!
          const v = {
            ...version(rng, sealWith, q, p, pad, 'resealed'),
            trace: old.trace,
            span: old.span,
            sem: old.sem,
          }
          db.prepare(
            'UPDATE chain SET canonical_body = ?, canonical_hash = ?, prev_hash = ?, hmac_hash = ? WHERE seq = ?',
          ).run(v.body, v.canonical, v.prev, v.hmac, q)
          live.set(q, v)
          attacked.add(q)
          p = v.hmac
        }
        break
      }
      case 'body-edit': {
        // Without the key: the body and its canonical_hash changed, the HMAC kept.
        const q = now[Math.floor(now.length / 2)]!
        const old = live.get(q)!
        const body = Buffer.from(old.body.toString('utf8').replace('"original"', '"edited!!"'))
        db.prepare('UPDATE chain SET canonical_body = ?, canonical_hash = ? WHERE seq = ?').run(
          body,
          sha256(body),
          q,
        )
        live.set(q, { ...old, body, canonical: sha256(body) })
        attacked.add(q)
        break
      }
      default:
        break
    }
    if (c.vacuumAfter) db.pragma('incremental_vacuum')
    // Copied while the writer still holds the file: closing the last connection checkpoints the
    // WAL into the file and deletes it, and a WAL-mode case would hold no WAL frames at all.
    copyFileSync(work, evidence)
    if (existsSync(`${work}-wal`)) copyFileSync(`${work}-wal`, `${evidence}-wal`)
  } finally {
    db.close()
  }
  if (c.foreign === 'past-end') {
    // A page of another chain's file appended past the header's page count: SQLite never reads it.
    const other = join(dir, 'other.db')
    const o = openWriter(other, { pageSize: c.pageSize, journal: 'delete' })
    // Small bodies: each record whole on its page (overflow page numbers would be the other file's).
    const rows = foreignRows(rng, key, 6, 20)
    plantTable(o, rows, foreignRowids(rng, rows.length, sortedKeys(live)[0]!, sortedKeys(live).at(-1)!))
    o.close()
    for (const r of rows) foreign.add(r.hmac)
    const bytes = readFileSync(other)
    appendFileSync(evidence, bytes.subarray(c.pageSize))
  }
  return {
    db: evidence,
    keys: c.history === 'rotation' ? [key, key2] : [key],
    segments,
    attacked,
    foreign,
    live,
    cleanup,
  }
}

const sortedKeys = (m: Map<bigint, unknown>): bigint[] => [...m.keys()].sort((a, b) => (a < b ? -1 : 1))

// seal is re-exported for tests that forge rows by hand.
export { seal }
