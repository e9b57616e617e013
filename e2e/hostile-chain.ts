// A sealed chain whose every text field the screen shows holds code points that draw nothing, move
// the cursor or reorder what follows (bidi overrides and isolates, zero-width spaces, line and
// paragraph separators, C0/C1 controls, tag characters): what an insider who
// writes the chain can put into a model, provider, span name, span kind, attribute key or value,
// status text, trace or span id — and into the folder name of the evidence. Written with the test
// suite's chain kit into a folder the served engine may open (the suite's cache folder, an
// --open-root of playwright.config.ts). Each row draws its own mix from a seeded generator.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng, spanRow, writeChain, type RowSpec } from '../test/main/reliability/chainkit'

/** Code points printable() (src/shared/printable.ts) writes as numbers, one of each kind. */
export const HOSTILE = [
  '\u202e', // RIGHT-TO-LEFT OVERRIDE (UAX #9)
  '\u202d', // LEFT-TO-RIGHT OVERRIDE
  '\u2067', // RIGHT-TO-LEFT ISOLATE
  '\u2069', // POP DIRECTIONAL ISOLATE
  '\u200f', // RIGHT-TO-LEFT MARK
  '\u061c', // ARABIC LETTER MARK
  '\u200b', // ZERO WIDTH SPACE
  '\u2060', // WORD JOINER
  '\ufeff', // BYTE ORDER MARK
  '\u00ad', // SOFT HYPHEN
  '\u2028', // LINE SEPARATOR
  '\u2029', // PARAGRAPH SEPARATOR
  '\u0085', // NEXT LINE (C1)
  '\u001b', // ESCAPE (C0)
  '\r',
  '\n',
  '\t',
  '\u0000',
  '\u007f',
  '\u{e0041}', // TAG LATIN CAPITAL LETTER A
]

/** A name for the evidence's folder: RLO makes `fdp.db` read as `bd.pdf`. */
export const HOSTILE_FOLDER = 'case\u202efdp'

export function hostileText(rng: Rng, word: string): string {
  const a = rng.pick(HOSTILE)
  const b = rng.pick(HOSTILE)
  return `${word}${a}${word.slice(0, 2)}${b}x`
}

export function writeHostileChain(seed = 7, rows = 60): { path: string; cleanup: () => void } {
  const cache = join(tmpdir(), 'bijotel-e2e-cache')
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, 'hostile-'))
  const folder = join(dir, HOSTILE_FOLDER)
  mkdirSync(folder)
  const path = join(folder, 'chain.db')
  const rng = new Rng(seed)
  const t0 = 1_764_000_000_000_000_000n
  // A few providers and models, so filters, charts and the evidence panel list them.
  const providers = [0, 1, 2].map(() => hostileText(rng, 'openai'))
  const models = [0, 1, 2].map(() => hostileText(rng, 'gpt-4o'))
  const specs: RowSpec[] = []
  for (let i = 0; i < rows; i++) {
    const name = hostileText(rng, 'chat')
    const kind = hostileText(rng, 'CLIENT')
    const row = spanRow({
      timestamp_ns: t0 + BigInt(i) * 60_000_000_000n,
      name,
      kind,
      attributes: {
        'gen_ai.provider.name': providers[i % 3],
        'gen_ai.request.model': models[i % 3],
        'gen_ai.response.model': hostileText(rng, 'resp'),
        'gen_ai.usage.input_tokens': 100 + i,
        'gen_ai.usage.output_tokens': 50 + i,
        'bijotel.cost_usd': 0.001,
        [hostileText(rng, 'attr')]: hostileText(rng, 'value'),
        'bijotel.replay.model_version': hostileText(rng, 'v1'),
        'bijotel.replay.deterministic': true,
      },
    })
    specs.push({ ...row, trace_id: hostileText(rng, 'ab'.repeat(4)), span_id: hostileText(rng, 'cd') })
  }
  writeChain(path, Buffer.alloc(32, 9), specs)
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
