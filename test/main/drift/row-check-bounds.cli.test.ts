// `bijotel regression`'s row check over hostile tables: a typeless `chain` whose seq repeats (one
// seq, hundreds of rows, each a finding of its own) and chains whose seqs are far apart (each finding
// spans more seq numbers than the rows read). On the old code every finding at a repeated seq copied
// that seq's list of reasons and added one more: time quadratic in the rows (10^5 rows: 74 s) and a
// note line of megabytes ("body does not hash…; body does not hash…; …"). Now each row's reasons are
// a set, matched by binary search: the note names each seq once with each reason once, and the seqs
// named are exactly the edited rows among those read (known from the construction; keyless check).
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RegressionResult } from '../../../src/shared/drift-types'
import { scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('row-check-bounds')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const T0 = 1_764_000_000_000_000_000n
const BODY = 'body does not hash to its canonical_hash'
const LINK = "prev_hash is not the previous row's hmac_hash"
type Edit = 'none' | 'body' | 'link' | 'both'

function row(i: number, seq: bigint, edit: Edit): RowSpec {
  return {
    ...spanRow({
      timestamp_ns: T0 + BigInt(i) * 1_000_000_000n,
      attributes: { 'gen_ai.request.model': 'claude-haiku-4-5', 'gen_ai.usage.input_tokens': 100 + (i % 13) },
    }),
    seq,
    ...(edit === 'body' || edit === 'both' ? { canonical_hash: 'f'.repeat(64) } : {}),
    ...(edit === 'link' || edit === 'both' ? { prev_hash: 'ab'.repeat(32) } : {}),
  }
}

const words = (e: Set<Edit>): string =>
  [e.has('body') || e.has('both') ? BODY : null, e.has('link') || e.has('both') ? LINK : null]
    .filter((w) => w !== null)
    .join('; ')

/** The note the row check prints for the edited seqs read (consecutive seqs, same reasons: one run). */
function expectedNote(bad: Map<bigint, Set<Edit>>): string {
  const seqs = [...bad.keys()].sort((a, b) => (a < b ? -1 : 1))
  const runs: { from: bigint; to: bigint; why: string }[] = []
  for (const s of seqs) {
    const why = words(bad.get(s)!)
    const last = runs[runs.length - 1]
    if (last && last.to + 1n === s && last.why === why) last.to = s
    else runs.push({ from: s, to: s, why })
  }
  const shown = runs
    .slice(0, 10)
    .map((r) => `${r.from === r.to ? `seq ${r.from}` : `seqs ${r.from}-${r.to}`} (${r.why})`)
  return (
    'note: rows whose values this judgement reads do NOT verify (seen without a key; HMAC not checked): ' +
    shown.join(', ') +
    (runs.length > 10 ? `, and ${runs.length - 10} more runs of rows` : '') +
    '; nothing proves their payloads are the ones sealed, so a baseline or an anomaly built on them proves nothing\n'
  )
}

const draw = (rand: () => number): Edit => {
  const p = rand()
  return p < 0.55 ? 'none' : p < 0.75 ? 'body' : p < 0.92 ? 'link' : 'both'
}

describe('regression: the row check over hostile tables is bounded', () => {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  // Each case its own seed: a failing one is replayed alone.
  for (let c = 0; c < 8; c++) {
    const repeated = c % 2 === 0
    it(`case ${c}: ${repeated ? 'a repeated seq' : 'seqs far apart'} — each seq named once, each reason once`, () => {
      const rand = mulberry32(0x11_0e_9c + c)
      const rows: RowSpec[] = []
      const bad = new Map<bigint, Set<Edit>>()
      const mark = (seq: bigint, e: Edit): void => {
        if (e === 'none') return
        if (!bad.has(seq)) bad.set(seq, new Set())
        bad
          .get(seq)!
          .add(e === 'both' ? 'body' : e)
          .add(e === 'both' ? 'link' : e)
      }
      let window: number
      if (repeated) {
        // Hundreds of rows at one seq before the 50 evaluated ones: the baseline reads that seq.
        const s0 = BigInt(1 + Math.floor(rand() * 1000))
        const dups = 300 + Math.floor(rand() * 900)
        window = 5 + Math.floor(rand() * 60)
        for (let i = 0; i < dups; i++) {
          const e = i === 0 ? 'none' : draw(rand)
          rows.push(row(i, s0, e))
          mark(s0, e)
        }
        const base = s0 + 1n + BigInt(Math.floor(rand() * 5000))
        for (let j = 0; j < 50; j++) {
          const e = draw(rand)
          rows.push(row(dups + j, base + BigInt(j), e))
          mark(base + BigInt(j), e)
        }
      } else {
        // Seqs `gap` apart: the last row alone is evaluated, the `window` before it are the baseline.
        const n = 200 + Math.floor(rand() * 600)
        const gap = 50n + BigInt(Math.floor(rand() * 1e9))
        window = 5 + Math.floor(rand() * (n - 10))
        for (let i = 0; i < n; i++) {
          const e = i === 0 ? 'none' : draw(rand)
          const seq = 1n + BigInt(i) * gap
          rows.push(row(i, seq, e))
          if (i >= n - 1 - window) mark(seq, e)
        }
      }
      const db = join(scratch.dir, `c${c}.db`)
      writeChain(db, key, rows, { loose: repeated })
      const args = ['regression', '--db', db, '--dimension', 'input_tokens', '--window', String(window)]
      const what = `case ${c} (${repeated ? 'repeated seq' : 'seqs far apart'}, ${rows.length} rows)`
      // --json prints the same note on stderr and the same exit code as the text output.
      const r = bijotel([...args, '--json'])
      const j = JSON.parse(r.stdout) as RegressionResult
      const seqs = [...bad.keys()].sort((a, b) => (a < b ? -1 : 1)).map(Number)
      if (seqs.length === 0) {
        expect(j.row_check, what).toBeUndefined()
        return
      }
      expect(r.code, what).toBe(3)
      expect(j.row_check?.seqs, what).toEqual(seqs)
      expect(r.stderr.length, what).toBeLessThan(4000)
      expect(r.stderr, what).toBe(expectedNote(bad))
    }, 30_000)
  }
})
