// A replayed output (or prompt) that is not Unicode text must never be hashed as some other text.
// Generated cases: random texts with lone surrogates (a JSON `\udXXX` escape in a batch line, a REST
// text, the library) and command-line values with bytes that are not UTF-8. Each row is sealed for
// the text a lossy encoder makes of the value (U+FFFD in place of what is not text): before the fix
// every case read MATCH, exit 0. Now: a bad line / a one-line argument error, never a match.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { promptDigests } from '../../../src/main/replay/check'
import { requestInput } from '../../../src/main/replay/check'
import { verifyReplay } from '../../../src/main/replay/verifier'
import { argvNotText } from '../../../src/main/cli/argv-bytes'
import { spanRow, writeChain } from '../reliability/chainkit'
import { tempDir } from '../server/testkit'
import { mulberry32 } from '../testing/prng'
import { BIN, bijotel, ensureBuilt } from './testcli'

const KEY = Buffer.alloc(32, 0x3c)
const tmp = tempDir('bijotel-replay-not-text-')
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex')

beforeAll(() => ensureBuilt())
afterAll(() => tmp.cleanup())

/** Random texts, each with at least one lone surrogate somewhere. */
function surrogateTexts(n: number, seed: number): string[] {
  const rnd = mulberry32(seed)
  const pick = (s: string): string => s[Math.floor(rnd() * s.length)] as string
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const parts: string[] = []
    const len = 1 + Math.floor(rnd() * 6)
    for (let k = 0; k < len; k++) {
      const r = rnd()
      if (r < 0.3) parts.push(pick('ab- \n\r\t{}"é'))
      else if (r < 0.4)
        parts.push('\ud83d\ude00') // a pair: text
      else parts.push(String.fromCharCode(0xd800 + Math.floor(rnd() * 0x800))) // lone
    }
    // Two adjacent halves can form a pair by chance: make sure one stays alone.
    parts.push('x', String.fromCharCode(0xdc00 + Math.floor(rnd() * 0x400)))
    out.push(parts.join(''))
  }
  return out
}

/** A chain whose row i is sealed (seeded, deterministic) for the lossy UTF-8 of texts[i]. */
function chainFor(name: string, lossy: Buffer[]): string {
  const path = join(tmp.dir, name)
  writeChain(
    path,
    KEY,
    lossy.map((b, i) =>
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: {
          'bijotel.replay.deterministic': true,
          'bijotel.replay.model_version': 'm-1',
          'bijotel.replay.output_hash': sha(b),
          'bijotel.replay.prompt_hash': sha(b),
          'bijotel.replay.seed': 7,
          'gen_ai.provider.name': 'openai',
        },
      }),
    ),
  )
  return path
}

describe('lone surrogates are not hashed as U+FFFD', () => {
  const texts = surrogateTexts(60, 0x5eed)
  const lossy = texts.map((t) => Buffer.from(t, 'utf8'))

  it('the library: verifyReplay never matches, requestInput and the prompt digests refuse', () => {
    for (const [i, t] of texts.entries()) {
      const body = { attributes: { 'bijotel.replay.output_hash': sha(lossy[i]!) } }
      const r = verifyReplay(body, t)
      expect(r.match, JSON.stringify(t)).toBe(false)
      expect(r.reason).toMatch(/lone surrogate/)
      expect(() => requestInput({ seq: 1, text: t })).toThrow(/lone surrogate/)
      expect(() => promptDigests(t)).toThrow(/lone surrogate/)
    }
  })

  it('replay --batch: every such output or prompt is a bad line, none matched', () => {
    const db = chainFor('batch.db', lossy)
    const lines = texts.flatMap((t, i) => [
      JSON.stringify({ seq: i + 1, output: t }),
      // The output genuinely matches (its own lossy text, valid UTF-8); the prompt is not text.
      JSON.stringify({ seq: i + 1, output: lossy[i]!.toString('utf8'), prompt: t }),
    ])
    const file = join(tmp.dir, 'batch.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    const r = bijotel(['replay', '--db', db, '--batch', file, '--json'])
    expect(r.stderr).toBe('')
    const objs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const summary = objs.pop()!
    expect(objs).toHaveLength(lines.length)
    for (const o of objs) {
      expect(o['status'], JSON.stringify(o)).toBe('bad_line')
      expect(String(o['error'])).toMatch(/lone surrogate/)
    }
    expect(JSON.stringify(summary)).not.toMatch(/"matched":[1-9]/)
    expect(r.code).not.toBe(0)
  })
})

describe('command-line values that are not UTF-8', () => {
  /** Byte strings that are not UTF-8 (stray continuation, truncated, overlong, surrogate, > U+10FFFF). */
  function badBytes(n: number, seed: number): Buffer[] {
    const rnd = mulberry32(seed)
    const bad = [
      [0xff],
      [0x80],
      [0xc0, 0xaf],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xfe],
    ]
    const out: Buffer[] = []
    for (let i = 0; i < n; i++) {
      const pre = Buffer.from('- answer '.slice(0, Math.floor(rnd() * 9)), 'utf8')
      const b = Buffer.from(bad[Math.floor(rnd() * bad.length)]!)
      out.push(Buffer.concat([pre, b, Buffer.from(rnd() < 0.5 ? '' : ' end', 'utf8')]))
    }
    return out
  }
  const values = badBytes(12, 0xb17e)
  const lossy = values.map((v) => Buffer.from(v.toString('utf8'), 'utf8'))

  it('replay --output with such bytes: one line, exit 2, never MATCH (the row is sealed for the U+FFFD text)', () => {
    const db = chainFor('argv.db', lossy)
    for (const [i, v] of values.entries()) {
      // bash passes the bytes as they are (spawnSync's own arguments are strings).
      const r = spawnSync(
        'bash',
        [
          '-c',
          'exec "$0" "$1" replay --db "$2" --seq "$3" --output "$(printf "$4")"',
          process.execPath,
          BIN,
          db,
          String(i + 1),
          [...v].map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join(''),
        ],
        { encoding: 'utf8', timeout: 60_000 },
      )
      expect(r.stdout, v.toString('hex')).not.toMatch(/MATCH/)
      expect(r.stderr).toMatch(/^bijotel: error: argument 7 is not valid UTF-8 text;[^\n]*\n$/)
      expect(r.status).toBe(2)
    }
    // The same text given as valid UTF-8 (U+FFFD itself) still matches: the refusal is about bytes.
    const ok = bijotel(['replay', '--db', db, '--seq', '1', '--output', lossy[0]!.toString('utf8')])
    expect(ok.stdout).toMatch(/^=== Replay MATCH \(seq=1\) ===/)
    expect(ok.code).toBe(0)
  })

  it('argvNotText: U+FFFD whose bytes cannot be read is refused; matching bytes pass', () => {
    expect(argvNotText(['a', 'b'], null)).toBeNull()
    expect(argvNotText(['\ufffd'], null)).toMatch(/cannot be read/)
    expect(argvNotText(['\ufffd'], [Buffer.from('node'), Buffer.from('\ufffd')])).toBeNull()
    expect(argvNotText(['x', '\ufffd'], [Buffer.from('x'), Buffer.from([0xff])])).toMatch(/argument 2/)
  })
})
