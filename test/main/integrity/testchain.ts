// Test helper: small hand-made chains in a temporary folder, shaped like the reference's own test
// fixture (§5.5: seq from 1, timestamps from 1.7×10^18 ns 180 s apart, provider `anthropic`, hash
// `hash-<seq as 8 digits>`), plus the columns our reader requires. Used by tests only.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const BASE_TS = 1_700_000_000_000_000_000n
export const SEC = 1_000_000_000n

export interface SynthRow {
  seq: number | bigint
  ts: bigint
  /** Stored as-is; a string is stored as its UTF-8 bytes (BLOB). Default: a body naming `provider`. */
  body?: Buffer | string | null
  provider?: string
  hash?: string | Buffer | number | null
}

export function bodyFor(provider: string | null): string {
  return provider === null
    ? '{"attributes":{}}'
    : JSON.stringify({ attributes: { 'gen_ai.provider.name': provider } })
}

/** `n` rows the way the reference's tests seed them; `spacingSec` between rows. */
export function seeded(
  n: number,
  opts: { spacingSec?: number; provider?: string | null; start?: bigint } = {},
): SynthRow[] {
  const spacing = BigInt(Math.round((opts.spacingSec ?? 180) * 1e9))
  const provider = opts.provider === undefined ? 'anthropic' : opts.provider
  return Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    ts: (opts.start ?? BASE_TS) + BigInt(i) * spacing,
    body: bodyFor(provider),
    hash: `hash-${String(i + 1).padStart(8, '0')}`,
  }))
}

/** Renumber rows' hashes after their seq changed (keeps `hash-<seq>` unique). */
export function rehash(rows: SynthRow[]): SynthRow[] {
  return rows.map((r) => ({ ...r, hash: `hash-${String(r.seq).padStart(8, '0')}` }))
}

export class TempChains {
  readonly dir = mkdtempSync(join(tmpdir(), 'bijotel-integrity-test-'))
  private n = 0

  write(
    rows: SynthRow[],
    schema = 'seq INTEGER PRIMARY KEY AUTOINCREMENT, timestamp_ns INTEGER NOT NULL, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT',
  ): string {
    const path = join(this.dir, `chain-${++this.n}.db`)
    const db = new Database(path)
    try {
      db.exec(`CREATE TABLE chain (${schema})`)
      const ins = db.prepare(
        'INSERT INTO chain (seq, timestamp_ns, canonical_body, canonical_hash, prev_hash, hmac_hash) VALUES (?, ?, ?, ?, ?, ?)',
      )
      db.transaction(() => {
        for (const r of rows) {
          const body = r.body === undefined ? bodyFor(r.provider ?? 'anthropic') : r.body
          ins.run(
            BigInt(r.seq),
            r.ts,
            typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
            r.hash === undefined ? `hash-${String(r.seq).padStart(8, '0')}` : r.hash,
            '0'.repeat(64),
            '0'.repeat(64),
          )
        }
      })()
    } finally {
      db.close()
    }
    return path
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}
