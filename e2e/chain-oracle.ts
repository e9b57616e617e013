// SQLite itself as the oracle of the browser tests: a fixture copied to a temporary folder and
// read there with better-sqlite3 (the fixture is never opened in place).
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

export interface OracleRow {
  seq: number
  timestamp_ns: bigint
  span_name: string
  canonical_hash: string
  prev_hash: string
  hmac_hash: string
  trace_id: string | null
  span_id: string | null
  canonical_body: string
}

/** Every row of a chain file (ascending seq), read by SQLite from a private copy. */
export function chainRows(file: string): OracleRow[] {
  const dir = mkdtempSync(join(tmpdir(), 'bijotel-e2e-oracle-'))
  try {
    const copy = join(dir, basename(file))
    copyFileSync(file, copy)
    const db = new Database(copy, { readonly: true })
    try {
      db.defaultSafeIntegers(true)
      const rows = db
        .prepare(
          'SELECT seq, timestamp_ns, span_name, canonical_hash, prev_hash, hmac_hash, trace_id, span_id, CAST(canonical_body AS TEXT) AS canonical_body FROM chain ORDER BY seq',
        )
        .all() as (Omit<OracleRow, 'seq'> & { seq: bigint })[]
      return rows.map((r) => ({ ...r, seq: Number(r.seq) }))
    } finally {
      db.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Rows with from ≤ timestamp_ns ≤ to (the engine's inclusive time filter). */
export function countInRange(rows: OracleRow[], from: bigint, to: bigint): number {
  return rows.filter((r) => r.timestamp_ns >= from && r.timestamp_ns <= to).length
}
