// Generated chains for the entries table's orders: every column's awkward values (missing, wrong
// type, equal, negative, huge, strings whose UTF-16 and UTF-8 orders differ, timestamps out of
// order or not integers, bodies that are not JSON). Rows are not sealed: the listing never reads
// the seal, and the oracle is SQLite's own reading of the same file.
import Database from 'better-sqlite3'
import { mulberry32 } from '../testing/prng'

const SPANS = ['chat', 'Chat', 'chat ', 'é', '\u{1F600}a', '\uFFFDb', '\uE000c', 'z', '', 'anthropic.chat']
const KINDS = ['CLIENT', 'SERVER', 'INTERNAL', null, '\u{1F600}']
const PROVIDERS = ['anthropic', 'openai', '', null, 'Anthropic', '\u{1F600}p', '\uFFFDp']
const MODELS = ['claude-haiku-4-5', 'gpt-4o', '', null, 'Z', '\u{1F600}m']
const STATUS = ['OK', 'ERROR', 'UNSET', null, 1, '', '\u{1F600}']

export function writeTableChain(path: string, rows: number, seed: number): void {
  const rnd = mulberry32(seed)
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!
  const chance = (p: number): boolean => rnd() < p
  const number = (): unknown =>
    pick([
      undefined,
      null,
      0,
      1,
      Math.floor(rnd() * 5000),
      Math.floor(rnd() * 5000),
      -3,
      2.5,
      1e300,
      '12',
      true,
      Math.floor(rnd() * 3),
    ])
  const time = (base: bigint): unknown =>
    pick([String(base), String(base), String(base), undefined, 'abc', '', Number(base % 1000000n), '1.5'])
  const db = new Database(path)
  try {
    db.exec(`CREATE TABLE chain (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, timestamp_ns INTEGER NOT NULL, trace_id TEXT NOT NULL,
      span_id TEXT NOT NULL, span_name TEXT NOT NULL, span_kind TEXT, canonical_body BLOB NOT NULL,
      canonical_hash TEXT NOT NULL, prev_hash TEXT NOT NULL, hmac_hash TEXT NOT NULL, semantic_body_hash TEXT)`)
    const insert = db.prepare(`INSERT INTO chain VALUES (?, ?, 't', 's', ?, ?, ?, ?, ?, ?, NULL)`)
    let ts = 1_700_000_000_000_000_000n
    let seq = 0
    db.transaction(() => {
      for (let i = 0; i < rows; i++) {
        seq += chance(0.1) ? 2 + Math.floor(rnd() * 5) : 1 // gaps: a missing seq is no row
        // Time mostly forward; sometimes equal, back, or far forward; rarely not an integer.
        const step = pick([1_000_000_000n, 0n, -5_000_000n, 3_000_000_000_000n, 7n])
        ts += step
        const stamp: unknown = chance(0.03) ? '17x' : ts
        const attrs: Record<string, unknown> = {}
        const put = (k: string, v: unknown): void => {
          if (v !== undefined) attrs[k] = v
        }
        put('gen_ai.provider.name', pick(PROVIDERS))
        if (chance(0.3)) put('gen_ai.system', pick(PROVIDERS))
        put('gen_ai.request.model', pick(MODELS))
        if (chance(0.3)) put('gen_ai.response.model', pick(MODELS))
        put('gen_ai.usage.input_tokens', number())
        put('gen_ai.usage.output_tokens', number())
        put('bijotel.cost_usd', chance(0.5) ? rnd() / 100 : number())
        const start = ts - BigInt(Math.floor(rnd() * 1e9))
        const body: Record<string, unknown> = { attributes: attrs, name: 'x', kind: 'CLIENT' }
        const st = time(start)
        const en = time(ts)
        if (st !== undefined) body['start_time_ns'] = st
        if (en !== undefined) body['end_time_ns'] = en
        const status = pick(STATUS)
        if (status !== null || chance(0.5)) body['status_code'] = status
        const raw = chance(0.05)
          ? pick(['not json {', '[1,2]', '"text"', '{"attributes":[1]}'])
          : JSON.stringify(body)
        const hash = chance(0.05)
          ? pick(['', 'ABC', '\u{1F600}', '\uFFFD'])
          : Math.floor(rnd() * 2 ** 32)
              .toString(16)
              .padStart(64, pick(['0', 'f', 'a']))
        insert.run(seq, stamp, pick(SPANS), pick(KINDS), Buffer.from(raw, 'utf8'), hash, '0', 'h' + seq)
      }
    })()
  } finally {
    db.close()
  }
}
