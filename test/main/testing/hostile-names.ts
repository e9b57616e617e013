// Chains whose provider names hold each class of unprintable code point (bidi overrides and
// isolates, line separators, C0/C1 controls, zero-width characters, the BOM, tags): the audited
// party chooses a provider name, and the integrity run names each provider that moved, so every
// report quotes them. Shared by the report file suites (JSON and HTML).
import Database from 'better-sqlite3'
import { createHash, createHmac } from 'node:crypto'
import { join } from 'node:path'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { mulberry32 } from './prng'

export const NAMES_SECRET = '62696a6f74656c2d64656d6f2d7365637265742d6e6f742d666f722d70726f64'

/** 80 rows: openai, then the four `names` in turn (each 25% of the second half: each a shift). */
export function chainWith(dir: string, names: string[], n: number): string {
  const path = join(dir, `chain-${n}.db`)
  const db = new Database(path)
  db.exec(CHAIN_TABLE_DDL)
  const ins = db.prepare(
    `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
     canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
  )
  let prev = '0'.repeat(64)
  let ts = 1_764_000_000_000_000_000n
  db.transaction(() => {
    for (let i = 1; i <= 80; i++) {
      ts += 60_000_000_000n
      const body = Buffer.from(
        JSON.stringify({
          attributes: { 'gen_ai.provider.name': i > 40 ? names[i % names.length]! : 'openai' },
          end_time_ns: ts.toString(),
          kind: 'CLIENT',
          name: 'chat',
          start_time_ns: (ts - 1000n).toString(),
        }),
      )
      const canonical = createHash('sha256').update(body).digest('hex')
      const hmac = createHmac('sha256', Buffer.from(NAMES_SECRET, 'hex'))
        .update(prev + canonical, 'utf8')
        .digest('hex')
      ins.run(i, ts, 'a'.repeat(32), 'b'.repeat(16), 'chat', 'CLIENT', body, canonical, prev, hmac, null)
      prev = hmac
    }
  })()
  db.close()
  return path
}

export const UNPRINTABLE = [
  '\u202e',
  '\u202d',
  '\u2066',
  '\u2069',
  '\u200f',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u009b',
  '\u007f',
  '\u200b',
  '\u2060',
  '\ufeff',
  '\u061c',
  '\u{e0041}',
  '\u001b',
  '\u0000',
  '\u00ad',
]

export function hostileNames(seed: number): string[] {
  const r = mulberry32(seed)
  return Array.from({ length: 4 }, (_, k) => {
    const c = UNPRINTABLE[(seed * 4 + k) % UNPRINTABLE.length]!
    const d = UNPRINTABLE[Math.floor(r() * UNPRINTABLE.length)]!
    return [`${c}evil`, `ok${c}`, `a${c}b${d}`, `${c}${d}\n"delta_pct": 0`][k]!
  })
}
