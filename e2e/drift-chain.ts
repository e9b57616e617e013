// A sealed chain with payload drift for the browser tests, written with the test suite's chain kit
// into a folder the served engine may open (the suite's cache folder under the OS temp folder, an
// --open-root of playwright.config.ts): 30 steady rows of openai/gpt-4o (fewer than one window of
// 50: no baseline), then 100 rows of anthropic/claude-haiku-4-5 whose last 50 carry spikes of every
// dimension of varied size (tokens, cost, cache and reasoning ratios, time to first chunk). With a
// window of 50 the app's series judges the second group's rows 81–130 against rows 31–80 — exactly
// what `bijotel regression --model claude-haiku-4-5 --window 50` judges — so the CLI is the oracle.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spanRow, writeChain, type RowSpec } from '../test/main/reliability/chainkit'

export const DRIFT_MODEL = 'claude-haiku-4-5'
export const DRIFT_WINDOW = 50

export function writeDriftChain(): { path: string; cleanup: () => void } {
  const cache = join(tmpdir(), 'bijotel-e2e-cache')
  mkdirSync(cache, { recursive: true })
  const dir = mkdtempSync(join(cache, 'drift-'))
  const path = join(dir, 'drift.db')
  const t0 = 1_764_000_000_000_000_000n
  const rows: RowSpec[] = []
  for (let i = 0; i < 130; i++) {
    const ts = t0 + BigInt(i) * 60_000_000_000n
    if (i < 30) {
      rows.push(
        spanRow({
          timestamp_ns: ts,
          name: 'chat gpt-4o',
          attributes: {
            'gen_ai.provider.name': 'openai',
            'gen_ai.request.model': 'gpt-4o',
            'gen_ai.usage.input_tokens': 300 + ((i * 17) % 23),
            'gen_ai.usage.output_tokens': 100 + ((i * 7) % 11),
          },
        }),
      )
      continue
    }
    const k = i - 30
    const late = k >= 50
    // Spikes of growing size: some pass z ≥ 3 only, some pass much higher thresholds too.
    const level = late && k % 6 === 0 ? 1 + ((k / 6) % 4) : 0
    rows.push(
      spanRow({
        timestamp_ns: ts,
        name: `chat ${DRIFT_MODEL}`,
        attributes: {
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': DRIFT_MODEL,
          'gen_ai.usage.input_tokens': 400 + ((k * 37) % 41) + level * level * 60,
          'gen_ai.usage.output_tokens':
            200 + ((k * 13) % 29) + (late && k % 7 === 0 ? 150 * (1 + (k % 3)) : 0),
          'gen_ai.usage.cache_read.input_tokens': late && k % 8 === 0 ? 0 : 300 + ((k * 11) % 17),
          'gen_ai.usage.reasoning.output_tokens': 50 + ((k * 7) % 13) + (late && k % 9 === 0 ? 400 : 0),
          'gen_ai.response.time_to_first_chunk':
            0.4 + (k % 10) / 100 + (late && k % 10 === 5 ? 0.3 * (k % 4) : 0),
        },
      }),
    )
  }
  writeChain(path, Buffer.alloc(32, 7), rows)
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
