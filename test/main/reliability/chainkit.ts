// Test-data kit for the reliability suite: a seeded PRNG, a minimal BIJOTEL writer for synthetic
// chains, and raw row access to *private temporary copies*. It never opens evidence: every path it
// writes is one the suite created under a temp folder (the fixtures are only ever copied from).
// Seals are computed with node:crypto directly, independent of the verifier under test.
import Database from 'better-sqlite3'
import { createHash, createHmac } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CHAIN_COLUMNS } from '../../../src/main/chain/table'
import { FIXTURES } from '../testing/fixtures'
import { CHAIN_TABLE_DDL, SEMHASH_INDEX_DDL, TRACE_INDEX_DDL } from '../../../src/main/chain/schema'

import { GENESIS_HASH as GENESIS } from '../../../src/main/chain/seal'

export { GENESIS }

/** The reference `chain` table (§1.1) and its indexes, as the project's writer creates them. */
export const CHAIN_SCHEMA = [CHAIN_TABLE_DDL, TRACE_INDEX_DDL, SEMHASH_INDEX_DDL]
  .map((sql) => `${sql};`)
  .join('\n')

/** The same columns with no types or constraints: lets hostile tests store any value anywhere. */
export const LOOSE_CHAIN_SCHEMA = `
CREATE TABLE chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
                    canonical_hash, prev_hash, hmac_hash, semantic_body_hash);
`

// ---------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32): every corpus is reproducible from its seed.

export class Rng {
  private s: number
  constructor(seed: number) {
    this.s = seed >>> 0
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0
    let t = this.s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** Integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)] as T
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n)
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256)
    return b
  }
  hex(chars: number): string {
    let s = ''
    for (let i = 0; i < chars; i++) s += '0123456789abcdef'[Math.floor(this.next() * 16)]
    return s
  }
}

// ---------------------------------------------------------------------------------------------
// Hashes and seals (reference §2.4, §3.2).

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

export function seal(key: Buffer, prev: string, canonical: string): string {
  return createHmac('sha256', key)
    .update(prev + canonical, 'utf8')
    .digest('hex')
}

// ---------------------------------------------------------------------------------------------
// Rows.

export interface ChainRow {
  seq: bigint
  timestamp_ns: unknown
  trace_id: unknown
  span_id: unknown
  span_name: unknown
  span_kind: unknown
  canonical_body: unknown
  canonical_hash: unknown
  prev_hash: unknown
  hmac_hash: unknown
  semantic_body_hash: unknown
}

export const ROW_COLUMNS = CHAIN_COLUMNS

/** Open a temp copy the suite owns (never evidence) with exact integers. */
export function openScratch(path: string): Database.Database {
  const db = new Database(path)
  db.defaultSafeIntegers(true)
  return db
}

export function readRows(db: Database.Database): ChainRow[] {
  return db.prepare(`SELECT ${ROW_COLUMNS.join(', ')} FROM chain ORDER BY seq`).all() as ChainRow[]
}

export function insertRow(db: Database.Database, row: ChainRow): void {
  db.prepare(
    `INSERT INTO chain (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`,
  ).run(...ROW_COLUMNS.map((c) => row[c]))
}

export function updateRow(db: Database.Database, seq: bigint, fields: Partial<Omit<ChainRow, 'seq'>>): void {
  const cols = Object.keys(fields) as (keyof Omit<ChainRow, 'seq'>)[]
  if (cols.length === 0) return
  db.prepare(`UPDATE chain SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE seq = ?`).run(
    ...cols.map((c) => fields[c]),
    seq,
  )
}

/** Move every row with seq ≥ `from` by `by` (either sign) without primary-key collisions. */
export function shiftSeqs(db: Database.Database, from: bigint, by: bigint): void {
  db.prepare('UPDATE chain SET seq = -seq WHERE seq >= ?').run(from)
  db.prepare('UPDATE chain SET seq = -seq + ? WHERE seq < 0').run(by)
}

// ---------------------------------------------------------------------------------------------
// Synthetic chains.

export interface SpanSpec {
  /** Ends up in `end_time_ns` and in the `timestamp_ns` column. */
  timestamp_ns: bigint
  name?: string
  kind?: string | null
  attributes?: Record<string, unknown>
}

/** A canonical-looking span body (keys sorted as JCS sorts them, compact JSON). */
export function spanBody(s: SpanSpec): Buffer {
  const attrs = s.attributes ?? { 'gen_ai.provider.name': 'openai', 'gen_ai.usage.output_tokens': 12 }
  const sorted = Object.fromEntries(
    Object.keys(attrs)
      .sort()
      .map((k) => [k, attrs[k]]),
  )
  const end = s.timestamp_ns.toString()
  const start = (s.timestamp_ns - 1_000_000n).toString()
  return Buffer.from(
    JSON.stringify({
      attributes: sorted,
      end_time_ns: end,
      kind: s.kind === undefined ? 'CLIENT' : s.kind,
      name: s.name ?? 'chat gpt-test',
      start_time_ns: start,
      status_code: 'UNSET',
      status_description: null,
    }),
    'utf8',
  )
}

export interface RowSpec {
  body: Buffer
  seq?: unknown
  timestamp_ns: unknown
  span_name?: unknown
  span_kind?: unknown
  trace_id?: unknown
  span_id?: unknown
  /** Override the stored canonical_hash (default: sha256 of the body). */
  canonical_hash?: unknown
  /** Override the stored prev_hash (default: the previous row's hmac_hash, or GENESIS). */
  prev_hash?: unknown
  /** Override the stored hmac_hash (default: the seal under `key`). */
  hmac_hash?: unknown
}

/** A row spec for a span, with the unsealed columns agreeing with the body. */
export function spanRow(s: SpanSpec): RowSpec {
  return {
    body: spanBody(s),
    timestamp_ns: s.timestamp_ns,
    span_name: s.name ?? 'chat gpt-test',
    span_kind: s.kind === undefined ? 'CLIENT' : s.kind,
  }
}

export interface WriteOptions {
  /** Use the typeless schema (any value in any column). */
  loose?: boolean
  /** Leave the database in WAL mode. */
  wal?: boolean
  /** Link the first row to this hash (default GENESIS). */
  prev?: string
}

/** Write a sealed chain to a new file the suite owns. Returns the head hmac. */
export function writeChain(path: string, key: Buffer, rows: RowSpec[], opts: WriteOptions = {}): string {
  if (existsSync(path)) throw new Error(`refusing to overwrite ${path}`)
  const db = openScratch(path)
  try {
    if (opts.wal) db.pragma('journal_mode = WAL')
    db.exec(opts.loose ? LOOSE_CHAIN_SCHEMA : CHAIN_SCHEMA)
    return appendRows(db, key, rows, opts.prev ?? GENESIS)
  } finally {
    db.close()
  }
}

/** Append sealed rows in one transaction, linking from `prev`. Returns the new head hmac. */
export function appendRows(db: Database.Database, key: Buffer, rows: RowSpec[], prev: string): string {
  const stmt = db.prepare(
    `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
                        canonical_hash, prev_hash, hmac_hash, semantic_body_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
  )
  let head = prev
  db.transaction(() => {
    for (const r of rows) {
      // `undefined` = computed; any other value (null included) is stored as given.
      const ch = r.canonical_hash !== undefined ? r.canonical_hash : sha256(r.body)
      const p = r.prev_hash !== undefined ? r.prev_hash : head
      const mac = r.hmac_hash !== undefined ? r.hmac_hash : seal(key, String(p), String(ch))
      stmt.run(
        r.seq ?? null,
        r.timestamp_ns,
        r.trace_id ?? '0'.repeat(32),
        r.span_id ?? '0'.repeat(16),
        r.span_name !== undefined ? r.span_name : 'chat gpt-test',
        r.span_kind === undefined ? 'CLIENT' : r.span_kind,
        r.body,
        ch,
        p,
        mac,
      )
      head = String(mac)
    }
  })()
  return head
}

/** `n` consistent span rows starting at a plausible 2025 time, one second apart. */
export function spanRows(n: number, t0 = 1_764_000_000_000_000_000n): RowSpec[] {
  const out: RowSpec[] = []
  for (let i = 0; i < n; i++)
    out.push(spanRow({ timestamp_ns: t0 + BigInt(i) * 1_000_000_000n, attributes: { i } }))
  return out
}

// ---------------------------------------------------------------------------------------------
// Fixtures and scratch folders.

/** Copy a fixture (and its -wal) into `dir`; the fixture itself is only read. */
export function copyFixture(name: string, dir: string, as = `${name}.db`): string {
  const dst = join(dir, as)
  copyFileSync(join(FIXTURES, `${name}.db`), dst)
  const wal = join(FIXTURES, `${name}.db-wal`)
  if (existsSync(wal)) copyFileSync(wal, `${dst}-wal`)
  return dst
}

export function scratchDir(label: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(process.env['BIJOTEL_SCRATCH'] ?? tmpdir(), `bijotel-${label}-`))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
