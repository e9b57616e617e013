// Test kit: sealed chains with many absent seqs (issue 35: more gaps than one seqGaps page, 100,000),
// drawn from a seed so a failing case can be replayed. Every class keeps its rows in seq order with
// gaps of drawn widths: one seq missing between every two rows, runs of missing seqs, a mix with
// live runs between gaps. Written with the suite's chain kit (real SQLite file, real seals), quickly:
// one body per row built by string, no JSON canonicalisation per row.
import { existsSync, renameSync, rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { CHAIN_SCHEMA, GENESIS, seal, sha256 } from '../reliability/chainkit'
import { mulberry32 } from './prng'

export type GapClass = 'every other seq' | 'runs' | 'mixed'

export const GAP_CLASSES: readonly GapClass[] = ['every other seq', 'runs', 'mixed']

/** The seqs of a chain of `rows` live rows of one class, ascending. */
export function gappySeqs(cls: GapClass, rows: number, seed: number): number[] {
  const rnd = mulberry32(seed)
  const out: number[] = []
  let s = 1 + Math.floor(rnd() * 5)
  for (let i = 0; i < rows; i++) {
    out.push(s)
    if (cls === 'every other seq') s += 2
    else if (cls === 'runs') s += 2 + Math.floor(rnd() * 50)
    // Mixed: a live neighbour (no gap) a third of the time, else a gap of 1 to 9 seqs.
    else s += rnd() < 1 / 3 ? 1 : 2 + Math.floor(rnd() * 9)
  }
  return out
}

/** The gaps of a seq list as seqGaps lists them (the oracle; SQLite reads the same file). */
export function gapsOf(seqs: readonly number[]): { after_seq: number; before_seq: number; index: number }[] {
  const out = []
  for (let i = 1; i < seqs.length; i++)
    if (seqs[i]! - seqs[i - 1]! > 1) out.push({ after_seq: seqs[i - 1]!, before_seq: seqs[i]!, index: i })
  return out
}

export const GAPPY_KEY = Buffer.alloc(32, 7)
const T0 = 1_764_000_000_000_000_000n

/**
 * A sealed chain holding `seqs` (one row each, one second apart, openai/gpt-4o then anthropic rows
 * in turn) at `path`, written to a side file first and moved into place (a reader never sees half).
 */
export function writeGappyChain(path: string, seqs: readonly number[], key: Buffer = GAPPY_KEY): void {
  if (existsSync(path)) throw new Error(`refusing to overwrite ${path}`)
  const tmp = `${path}.part-${process.pid}`
  rmSync(tmp, { force: true })
  const db = new Database(tmp)
  try {
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.exec(CHAIN_SCHEMA)
    const stmt = db.prepare(
      `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
                          canonical_hash, prev_hash, hmac_hash, semantic_body_hash)
       VALUES (?, ?, ?, ?, ?, 'CLIENT', ?, ?, ?, ?, NULL)`,
    )
    let prev = GENESIS
    db.transaction(() => {
      seqs.forEach((seq, i) => {
        const ts = T0 + BigInt(i) * 1_000_000_000n
        const [provider, model] = i % 2 === 0 ? ['openai', 'gpt-4o'] : ['anthropic', 'claude-haiku-4-5']
        // Keys in JCS order (RFC 8785 §3.2.3: sorted by UTF-16 code units), compact, ASCII only.
        const body =
          `{"attributes":{"gen_ai.provider.name":"${provider}","gen_ai.request.model":"${model}",` +
          `"gen_ai.usage.output_tokens":${12 + (i % 7)}},"end_time_ns":"${ts}","kind":"CLIENT",` +
          `"name":"chat ${model}","start_time_ns":"${ts - 1_000_000n}","status_code":"UNSET",` +
          `"status_description":null}`
        const ch = sha256(body)
        const mac = seal(key, prev, ch)
        stmt.run(seq, ts, '0'.repeat(32), '0'.repeat(16), `chat ${model}`, Buffer.from(body), ch, prev, mac)
        prev = mac
      })
    })()
  } finally {
    db.close()
  }
  renameSync(tmp, path)
}
