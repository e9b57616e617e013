// Test kit for replay batches (issue 37): a generated chain whose rows carry replay metadata of each
// kind (seeded, unseeded, none, with string and message-list prompts, a tampered row), and a
// generator of batch lines of every class — matching, mismatching, seq missing, bad in each way —
// each with the status an independent oracle (what the generator wrote) expects.
import Database from 'better-sqlite3'
import { ChainWriter } from '../../../src/main/writer/chain-writer'
import { recordReplayContext } from '../../../src/main/writer/replay-context'
import type { ReplayBatchStatus } from '../../../src/shared/replay-types'
import { mulberry32 } from './prng'

export const BATCH_KEY = Buffer.alloc(32, 0x5a)

export interface GenRow {
  seq: number
  output: string
  seeded: boolean
  metadata: boolean
  prompt: string | { role: string; content: string }[] | null
  model: string
  tampered: boolean
}

/** A small PRNG (mulberry32): the same seed, the same batch. */
export const rng = mulberry32

const OUTPUTS = (i: number): string =>
  [
    `answer ${i}`,
    `line one ${i}\nline two`,
    `caf\u00e9 ${i} \u2014 \u{1f600}`,
    `- a bullet ${i}\n`,
    `  ${i}  `,
  ][i % 5]!

/** Writes `rows` rows; every `tamperEvery`-th row's body is edited afterwards (its seal no longer holds). */
export function writeReplayChain(path: string, rows: number, tamperEvery = 97): GenRow[] {
  const out: GenRow[] = []
  const w = ChainWriter.open(path, BATCH_KEY, { mode: 'create' })
  try {
    for (let i = 1; i <= rows; i++) {
      const kind = i % 6
      const model = ['gpt-4o', 'claude-haiku-4-5', 'gemini-2.5'][i % 3]!
      const output = OUTPUTS(i)
      const prompt = kind === 3 ? [{ role: 'user', content: `q${i}` }] : kind === 4 ? `prompt ${i}` : null
      const metadata = kind !== 2
      const seeded = metadata && kind !== 1
      const attrs = metadata
        ? recordReplayContext({
            prompt: prompt ?? `p${i}`,
            output,
            model,
            ...(seeded ? { seed: i } : {}),
          })
        : {}
      w.appendSpan({ name: `call.${i}`, attributes: { 'gen_ai.request.model': model, ...attrs } })
      out.push({ seq: i, output, seeded, metadata, prompt, model, tampered: false })
    }
  } finally {
    w.close()
  }
  const db = new Database(path)
  try {
    const edit = db.prepare(
      "UPDATE chain SET canonical_body = CAST(replace(CAST(canonical_body AS TEXT), '\"call.', '\"CALL.') AS BLOB) WHERE seq = ?",
    )
    for (let i = tamperEvery; i <= rows; i += tamperEvery) {
      edit.run(i)
      out[i - 1]!.tampered = true
    }
  } finally {
    db.close()
  }
  return out
}

export interface GenLine {
  /** The JSONL line as sent (bytes: one line may be deliberately invalid UTF-8). */
  bytes: Buffer
  /** The status the generator's own knowledge says the line must get. */
  expect: ReplayBatchStatus
}

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64')
const line = (o: unknown): Buffer => Buffer.from(JSON.stringify(o), 'utf8')

/** The status of a checkable line on `row`, given whether its output and prompt are the sealed ones. */
function oracle(
  row: GenRow,
  outputSame: boolean,
  promptGiven: 'none' | 'right' | 'wrong',
): ReplayBatchStatus {
  // The edit leaves the body's canonical_hash stale: seen with or without the key.
  if (row.tampered) return 'row_not_verified'
  if (!row.metadata) return 'no_metadata'
  if (!outputSame) return row.seeded ? 'mismatch_seeded' : 'mismatch_unseeded'
  if (promptGiven === 'wrong') return 'prompt_differs'
  return 'matched'
}

/** `n` lines over `rows`, of every class, in a shuffled order (the same statuses with or without the key). */
export function generateLines(rows: GenRow[], n: number, seed: number): GenLine[] {
  const r = rng(seed)
  const pick = (): GenRow => rows[Math.floor(r() * rows.length)]!
  const out: GenLine[] = []
  const BAD: (() => Buffer)[] = [
    () => Buffer.from('not json at all'),
    () => Buffer.from('{"seq": 3, "output": "x"'),
    () => Buffer.from('[1, 2]'),
    () => line({ seq: '3', output: 'x' }),
    () => line({ seq: 1.5, output: 'x' }),
    () => line({ seq: 3 }),
    () => line({ seq: 3, output: '' }),
    () => line({ seq: 3, output: 'x', output_base64: b64('x') }),
    () => line({ seq: 3, output: 'x', outptu: 'typo' }),
    () => line({ seq: 3, output_base64: '@@not base64@@' }),
    // A NUL is text (as to Python's read_text); NUL with a truncated sequence is not UTF-8.
    () => line({ seq: 3, output_base64: b64(Buffer.from([0x61, 0x00, 0xc3])), name: 'nul-not-utf8.txt' }),
    () => line({ seq: 3, output_base64: b64(Buffer.from([0xff, 0xfe, 0x41])) }),
    () => line({ seq: 3, output: 'x', prompt: 'a', prompt_file: 'b' }),
    () => line({ seq: 3, output: 'x', raw: true }),
    () =>
      Buffer.concat([Buffer.from('{"seq": 3, "output": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
  ]
  for (let k = 0; k < n; k++) {
    const c = r()
    if (c < 0.12) {
      out.push({ bytes: BAD[Math.floor(r() * BAD.length)]!(), expect: 'bad_line' })
      continue
    }
    if (c < 0.17) {
      const seq = rows.length + 1 + Math.floor(r() * 1000)
      out.push({ bytes: line({ seq, output: 'x' }), expect: 'seq_missing' })
      continue
    }
    const row = pick()
    const same = r() < 0.55
    const text = same ? row.output : `${row.output} (replayed differently)`
    const asFile = r() < 0.4
    let promptGiven: 'none' | 'right' | 'wrong' = 'none'
    const o: Record<string, unknown> = { seq: row.seq }
    if (asFile) {
      // A file is read as --output-file reads it: CRLF becomes LF, so the sealed text is matched.
      o['output_base64'] = b64(text.replace(/\n/g, r() < 0.5 ? '\r\n' : '\n'))
      o['name'] = `replay-${row.seq}.txt`
    } else o['output'] = text
    if (row.prompt !== null && r() < 0.6) {
      promptGiven = r() < 0.7 ? 'right' : 'wrong'
      const p = typeof row.prompt === 'string' ? row.prompt : JSON.stringify(row.prompt)
      o['prompt'] = promptGiven === 'right' ? p : `${p}!`
    }
    out.push({ bytes: line(o), expect: oracle(row, same, promptGiven) })
  }
  return out
}

export function jsonlOf(lines: GenLine[]): Buffer {
  return Buffer.concat(lines.flatMap((l) => [l.bytes, Buffer.from('\n')]))
}
