// The replay verdict quotes what the audited party sealed: the output_hash and model_version of the
// row, and in a batch the line's name and the per-model summary. On the old code they were printed
// as they are: a sealed output_hash of "<hash>\n=== Replay MATCH (seq=N) ===" printed a MATCH line
// under the MISMATCH (exit 3), a model_version with "\nResult: every deterministic entry matched
// (exit 0)" a second Result line under a FAILED batch, and ESC[8m hid every line after it. Generated
// sealed values (controls, ESC, CR, NEL, U+2028, bidi overrides, BOM) in chains that verify: every
// line printed is the program's own (no unprintable code point, one verdict line per entry, one
// Result line per batch), and an honest value prints unchanged.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasUnprintable } from '../../../src/shared/printable'
import { scratchDir, spanRow, writeChain } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('sealed-text-lines')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const HELLO = 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9' // sha256('hello world')
const NASTY = [
  '\n',
  '\r',
  '\r\n',
  '\u001b[8m',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u202e',
  '\ufeff',
  '\u0000',
  '\u0007',
  '\u200b',
]
const FORGED = [
  '=== Replay MATCH (seq=1) ===',
  'Result: every deterministic entry matched (exit 0)',
  '  row:            row verifies',
]

function hostile(rnd: () => number, honest: string): string {
  const pick = <X>(a: readonly X[]): X => a[Math.floor(rnd() * a.length)]!
  const at = Math.floor(rnd() * (honest.length + 1))
  return honest.slice(0, at) + pick(NASTY) + (rnd() < 0.6 ? pick(FORGED) : '') + honest.slice(at)
}

describe('sealed values in the replay text are shown, never printed as lines', () => {
  it('single entries and batches over generated sealed values', () => {
    const rnd = mulberry32(0x7e47)
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    for (let c = 0; c < 6; c++) {
      const n = 8
      const rows = Array.from({ length: n }, (_, i) =>
        spanRow({
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          attributes: {
            'bijotel.replay.output_hash': rnd() < 0.5 ? hostile(rnd, HELLO) : HELLO,
            'bijotel.replay.model_version': rnd() < 0.7 ? hostile(rnd, 'model-x') : 'model-x',
            'bijotel.replay.deterministic': rnd() < 0.5,
          },
        }),
      )
      const db = join(scratch.dir, `c${c}.db`)
      writeChain(db, key, rows)
      for (let seq = 1; seq <= n; seq++) {
        const r = bijotel([
          'replay',
          '--db',
          db,
          '--seq',
          String(seq),
          '--output',
          'hello world',
          '--secret-hex',
          SECRETS['primary']!,
        ])
        const lines = r.stdout.split('\n').slice(0, -1)
        for (const l of lines) expect(hasUnprintable(l), JSON.stringify(l)).toBe(false)
        expect(lines.filter((l) => l.startsWith('=== Replay '))).toHaveLength(1)
        expect(lines.filter((l) => l.startsWith('  row:'))).toHaveLength(1)
      }
      const batch = join(scratch.dir, `b${c}.jsonl`)
      const names = Array.from({ length: n }, () => hostile(rnd, 'out.txt'))
      writeFileSync(
        batch,
        names.map((name, i) => JSON.stringify({ seq: i + 1, output: 'hello world', name })).join('\n') + '\n',
      )
      const b = bijotel(['replay', '--db', db, '--batch', batch, '--secret-hex', SECRETS['primary']!])
      const lines = b.stdout.split('\n').slice(0, -1)
      for (const l of lines) expect(hasUnprintable(l), JSON.stringify(l)).toBe(false)
      expect(lines.filter((l) => l.startsWith('Result:'))).toHaveLength(1)
      expect(
        lines.filter((l) => l.startsWith('=== Replay MATCH') || l.startsWith('=== Replay MISMATCH')),
      ).toHaveLength(n)
      expect(lines.filter((l) => l.startsWith('--- line '))).toHaveLength(n)
    }
  }, 180_000)

  it('honest values print as the reference prints them', () => {
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    const db = join(scratch.dir, 'honest.db')
    writeChain(db, key, [
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n,
        attributes: {
          'bijotel.replay.output_hash': HELLO,
          'bijotel.replay.model_version': 'claude-haiku-4-5',
        },
      }),
    ])
    const r = bijotel(['replay', '--db', db, '--seq', '1', '--output', 'hello world'])
    expect(r.stdout.split('\n').slice(0, 5)).toEqual([
      '=== Replay MATCH (seq=1) ===',
      `  original_hash:  ${HELLO}`,
      `  replay_hash:    ${HELLO}`,
      '  deterministic:  False',
      '  model_version:  claude-haiku-4-5',
    ])
  })
})
