// Test helpers for the shared fixtures, read in place and never written (see ../shared/fixtures/README.md).
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import type { SecretInput } from '../../../src/shared/contract'

export const FIXTURES = process.env['BIJOTEL_FIXTURES'] ?? resolve(__dirname, '../../../../shared/fixtures')
export const REPO_ROOT = resolve(__dirname, '../../..')

export interface ExpectedFixture {
  notes: string[]
  secrets: string[]
  verify: Record<string, unknown>
  verify_primary_only: Record<string, unknown>
  integrity_window_100: Record<string, unknown>
  integrity_window_500: Record<string, unknown>
  replay?: { seq: number; file: string; expected: Record<string, unknown> }[]
}

export const SECRETS = JSON.parse(readFileSync(join(FIXTURES, 'secrets.json'), 'utf8')) as Record<
  string,
  string
>

/** Names of the fixtures that have an expected verdict (`NAME.db` + `NAME.expected.json`). */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => f.slice(0, -'.expected.json'.length))
    .sort()
}

export function expected(name: string): ExpectedFixture {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as ExpectedFixture
}

export function dbPath(name: string): string {
  return join(FIXTURES, `${name}.db`)
}

/** The candidate key set of a fixture, hex for the hex secrets and text for `raw_text`. */
export function secretInputs(names: string[]): SecretInput[] {
  return names.map((n) => {
    const value = SECRETS[n]
    if (value === undefined) throw new Error(`unknown fixture secret ${n}`)
    return n === 'raw_text' ? { encoding: 'text', value } : { encoding: 'hex', value }
  })
}

/** SHA-256 and mtime of every file in the fixtures folder, to prove afterwards nothing changed. */
export function fingerprintFolder(dir: string = FIXTURES): Map<string, string> {
  const out = new Map<string, string>()
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f)
    const st = statSync(p)
    const sha = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : 'dir'
    out.set(f, `${sha}:${st.size}:${st.mtimeMs}`)
  }
  return out
}

/**
 * SQLite's own reading of a chain (the oracle), on a private copy: even a read-only SQLite connection
 * creates `-shm` (and, for a WAL-mode file without one, an empty `-wal`) beside the file it opens, so
 * evidence and fixtures are never opened by SQLite in place. The copy takes the `-wal` and
 * `-journal` too, so SQLite sees what it would see in the original folder.
 */
/** A chain copied with the side files SQLite would apply (`-wal`, `-journal`) where they exist. */
export function copyWithSideFiles(from: string, to: string): void {
  copyFileSync(from, to)
  for (const side of ['-wal', '-journal']) if (existsSync(from + side)) copyFileSync(from + side, to + side)
}

export function withSqliteCopy<T>(path: string, read: (db: Database.Database) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'bijotel-oracle-'))
  try {
    const copy = join(dir, basename(path))
    copyWithSideFiles(path, copy)
    const db = new Database(copy, { readonly: true, fileMustExist: true })
    try {
      return read(db)
    } finally {
      db.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
