// Test kit: what every recovery case generator (../recovery/generator.ts, claims-generator.ts,
// journal-generator.ts, and the live-page differential) sets up the same way — a temporary case
// folder with a writer's `work/` and the evidence's `evidence/`, a chain database opened as a
// service's writer would (page size, journal mode, secure_delete off, no auto-vacuum, no automatic
// checkpoint), the reference schema, and rows sealed under a key, every version kept as ground truth.
import Database from 'better-sqlite3'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CHAIN_TABLE_DDL, SEMHASH_INDEX_DDL, TRACE_INDEX_DDL } from '../../../src/main/chain/schema'
import { seal, sha256, type Rng } from '../reliability/chainkit'

/** The reference schema: the chain table and its two indexes. */
export const CHAIN_DDL = [CHAIN_TABLE_DDL, TRACE_INDEX_DDL, SEMHASH_INDEX_DDL].join(';\n')

export interface CaseFolder {
  dir: string
  /** The writer's file (`work/chain.db`): the case writes here, then copies it to `evidence`. */
  work: string
  /** The evidence's file (`evidence/chain.db`), side files beside it. */
  evidence: string
  cleanup(): void
}

// Folders not yet cleaned up: a generator that throws mid-history never reaches its caller's
// `finally`, so the test process removes what is left when it exits.
const open = new Set<string>()
process.once('exit', () => {
  for (const dir of open) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary folder for one case (named `prefix`…), with `work/` and `evidence/`. */
export function caseFolder(prefix: string): CaseFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  open.add(dir)
  mkdirSync(join(dir, 'work'))
  mkdirSync(join(dir, 'evidence'))
  return {
    dir,
    work: join(dir, 'work', 'chain.db'),
    evidence: join(dir, 'evidence', 'chain.db'),
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true })
      open.delete(dir)
    },
  }
}

export interface RowVersion {
  seq: bigint
  ts: bigint
  trace: string
  span: string
  name: string
  kind: string
  body: Buffer
  canonical: string
  prev: string
  hmac: string
  sem: string
}

const INSERT = `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
  canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

let clock = 1_764_000_000_000_000_000n

/** A row sealed under `key` after `prev`, its body padded with `pad` random hex bytes and `tag`ged. */
export function version(
  rng: Rng,
  key: Buffer,
  seq: bigint,
  prev: string,
  pad: number,
  tag: string,
): RowVersion {
  const ts = (clock += 1_000_000n)
  const body = Buffer.from(
    JSON.stringify({
      attributes: { 'gen_ai.provider.name': 'openai', note: tag, pad: rng.hex(pad) },
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

export function insert(db: Database.Database, v: RowVersion): void {
  db.prepare(INSERT).run(
    v.seq,
    v.ts,
    v.trace,
    v.span,
    v.name,
    v.kind,
    v.body,
    v.canonical,
    v.prev,
    v.hmac,
    v.sem,
  )
}

export interface WriterShape {
  pageSize: number
  journal: 'wal' | 'delete' | 'persist'
  /**
   * auto_vacuum from the file's creation (default NONE). It must be set before the journal mode: a
   * switch to WAL writes page 1, and auto-vacuum can only be chosen before the first page is written
   * (or by a VACUUM).
   */
  autoVacuum?: 'NONE' | 'FULL' | 'INCREMENTAL'
}

/**
 * The database at `path` opened as a service's writer would: `pageSize` pages, the journal mode,
 * secure_delete off (SQLite's and better-sqlite3's default: deleted bytes stay), no auto-vacuum (unless
 * `autoVacuum` says otherwise), and
 * no automatic checkpoint (the case decides when, or whether, the WAL is checkpointed).
 */
export function openWriter(path: string, c: WriterShape): Database.Database {
  const db = new Database(path)
  db.defaultSafeIntegers(true)
  db.pragma(`page_size = ${c.pageSize}`)
  db.pragma('secure_delete = OFF')
  db.pragma(`auto_vacuum = ${c.autoVacuum ?? 'NONE'}`)
  db.pragma(`journal_mode = ${c.journal === 'wal' ? 'WAL' : c.journal === 'persist' ? 'PERSIST' : 'DELETE'}`)
  db.pragma('wal_autocheckpoint = 0')
  return db
}

const SEGMENT_INSERT = `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
  canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`

/**
 * Archiving as the writer's rotation does: the oldest third of the live rows copied into a new
 * segment file `segment-N.db` in `dir` (its path pushed on `segments`), then deleted from `db` and
 * from `live`. Fewer than six live rows: nothing is archived.
 */
export function archiveOldest(
  db: Database.Database,
  live: Map<bigint, RowVersion>,
  dir: string,
  segments: string[],
): void {
  const seqs = [...live.keys()].sort((a, b) => (a < b ? -1 : 1))
  if (seqs.length < 6) return
  const cut = seqs[Math.floor(seqs.length / 3)]!
  const seg = join(dir, `segment-${segments.length + 1}.db`)
  const s = new Database(seg)
  s.exec(CHAIN_TABLE_DDL)
  const ins = s.prepare(SEGMENT_INSERT)
  s.transaction(() => {
    for (const q of seqs)
      if (q < cut) {
        const v = live.get(q)!
        ins.run(q, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem)
        live.delete(q)
      }
  })()
  s.close()
  db.prepare('DELETE FROM chain WHERE seq < ?').run(cut)
  segments.push(seg)
}
