// The chain table exactly as Python BIJOTEL creates it (reference §1.1, `_init_chain_db`). SQLite
// stores the statement text with `IF NOT EXISTS` removed, so `sqlite_master.sql` of a file made here
// reads byte for byte like the reference's (and the shared fixtures').
import type Database from 'better-sqlite3'

export const GENESIS = '0'.repeat(64)
export const BUSY_TIMEOUT_MS = 5000
export const DB_FILE_MODE = 0o600
export const MIN_SECRET_BYTES = 16

export const CHAIN_TABLE_DDL = `CREATE TABLE IF NOT EXISTS chain (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp_ns INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    span_id TEXT NOT NULL,
    span_name TEXT NOT NULL,
    span_kind TEXT,
    canonical_body BLOB NOT NULL,
    canonical_hash TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hmac_hash TEXT NOT NULL,
    semantic_body_hash TEXT
)`
export const TRACE_INDEX_DDL = 'CREATE INDEX IF NOT EXISTS idx_chain_trace ON chain(trace_id)'
export const SEMHASH_INDEX_DDL = 'CREATE INDEX IF NOT EXISTS idx_chain_semhash ON chain(semantic_body_hash)'
export const ADD_SEMHASH_COLUMN = 'ALTER TABLE chain ADD COLUMN semantic_body_hash TEXT'

/** What `sqlite_master.sql` holds for each object after `initChainSchema`. */
export const STORED_SCHEMA: Readonly<Record<string, string>> = {
  chain: CHAIN_TABLE_DDL.replace('CREATE TABLE IF NOT EXISTS', 'CREATE TABLE'),
  sqlite_sequence: 'CREATE TABLE sqlite_sequence(name,seq)',
  idx_chain_trace: TRACE_INDEX_DDL.replace('CREATE INDEX IF NOT EXISTS', 'CREATE INDEX'),
  idx_chain_semhash: SEMHASH_INDEX_DDL.replace('CREATE INDEX IF NOT EXISTS', 'CREATE INDEX'),
}

export const INSERT_ROW_SQL = `INSERT INTO chain (
    timestamp_ns, trace_id, span_id, span_name, span_kind,
    canonical_body, canonical_hash, prev_hash, hmac_hash,
    semantic_body_hash
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

export const LAST_HMAC_SQL = 'SELECT hmac_hash FROM chain ORDER BY seq DESC LIMIT 1'

/**
 * `_init_chain_db` on an open connection: busy timeout first, WAL (persisted in the file), then the
 * table, the trace index, the semantic_body_hash migration for pre-F3 tables and its index, all in
 * one BEGIN IMMEDIATE so concurrent initialisers serialise. Idempotent.
 */
export function initChainSchema(db: Database.Database, busyTimeoutMs = BUSY_TIMEOUT_MS): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`)
  const mode = String(db.pragma('journal_mode', { simple: true }))
  if (mode.toLowerCase() !== 'wal') db.pragma('journal_mode = WAL')
  db.transaction(() => {
    db.exec(CHAIN_TABLE_DDL)
    db.exec(TRACE_INDEX_DDL)
    const cols = (db.prepare('PRAGMA table_info(chain)').all() as { name: string }[]).map((c) => c.name)
    if (!cols.includes('semantic_body_hash')) db.exec(ADD_SEMHASH_COLUMN)
    db.exec(SEMHASH_INDEX_DDL)
  }).immediate()
}
