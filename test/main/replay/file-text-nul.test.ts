// Replay files as CPython's `Path(f).read_text(encoding="utf-8")` reads them (reference §6.4), held
// to CPython itself on real files: NUL bytes anywhere, lone CR, CRLF, CR CR LF, a BOM first and in
// the middle, and each of those placed across the 8 KiB chunks Python's text layer decodes in (a CR
// ending one chunk with its LF starting the next; a multi-byte character split between chunks).
// Every generated file holds a NUL. Before round 11 each was refused ("looks binary", exit 1)
// where Python hashed it: now the SHA-256 is Python's, and a batch over a chain sealed with
// Python's hashes reads MATCH on every line.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeReplayBytes, utf8Text } from '../../../src/main/replay/text'
import { spanRow, writeChain } from '../reliability/chainkit'
import { tempDir } from '../server/testkit'
import { mulberry32 } from '../testing/prng'
import { bijotel, ensureBuilt } from './testcli'

const hasPython = spawnSync('python3', ['--version']).status === 0
const tmp = tempDir('bijotel-replay-nul-')
beforeAll(() => ensureBuilt())
afterAll(() => tmp.cleanup())

const PIECES: number[][] = [
  [0x00], [0x00, 0x00], [0x0d], [0x0a], [0x0d, 0x0a], [0x0d, 0x0d, 0x0a], [0xef, 0xbb, 0xbf],
  [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0x61], [0x20], [0x0d, 0x00],
] // prettier-ignore

/** Generated files: short ones, and ones whose pieces straddle Python's 8192-byte read chunks. */
function files(seed: number, n: number): Buffer[] {
  const rnd = mulberry32(seed)
  const out: Buffer[] = []
  while (out.length < n) {
    const parts: number[] = []
    const long = rnd() < 0.5
    if (long) {
      // Filler up to a chunk boundary, give or take a few bytes, then the pieces across it.
      const edge = 8192 * (1 + Math.floor(rnd() * 2)) - 4 + Math.floor(rnd() * 6)
      while (parts.length < edge) parts.push(0x61 + Math.floor(rnd() * 26))
    }
    const k = 1 + Math.floor(rnd() * 8)
    // Every file holds a NUL: one piece is a NUL, placed between whole characters.
    const nulAt = Math.floor(rnd() * (k + 1))
    for (let i = 0; i <= k; i++)
      parts.push(...(i === nulAt ? [0] : PIECES[Math.floor(rnd() * PIECES.length)]!))
    out.push(Buffer.from(parts))
  }
  return out
}

/** CPython's SHA-256 of each file's read_text (null where it raises). */
function pythonHashes(paths: string[]): (string | null)[] {
  const script =
    'import hashlib,json,pathlib,sys\nout=[]\nfor p in json.load(sys.stdin):\n' +
    '    try: out.append(hashlib.sha256(pathlib.Path(p).read_text(encoding="utf-8").encode("utf-8")).hexdigest())\n' +
    '    except UnicodeDecodeError: out.append(None)\nprint(json.dumps(out))'
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(paths), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as (string | null)[]
}

describe.skipIf(!hasPython)('replay files with NUL, CR and BOMs: what CPython read_text hashes', () => {
  it.each([5, 23, 97])('the same SHA-256 as CPython, and MATCH through the CLI (seed %i)', (seed) => {
    const bytes = files(seed, 40)
    const paths = bytes.map((b, i) => {
      const p = join(tmp.dir, `s${seed}-${i}.txt`)
      writeFileSync(p, b)
      return p
    })
    const want = pythonHashes(paths)
    expect(want.every((h) => h !== null)).toBe(true)
    const got = bytes.map((b) => {
      const v = decodeReplayBytes(b, 'python', 'f')
      return createHash('sha256')
        .update(typeof v === 'string' ? utf8Text(v, 'f') : v)
        .digest('hex')
    })
    expect(got).toEqual(want)
    // A chain whose row i seals Python's hash of file i; one batch replays them all.
    const db = join(tmp.dir, `s${seed}.db`)
    writeChain(
      db,
      Buffer.alloc(32, 0x5a),
      want.map((h, i) =>
        spanRow({
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          attributes: {
            'bijotel.replay.output_hash': h,
            'bijotel.replay.deterministic': true,
            'bijotel.replay.model_version': 'm-1',
          },
        }),
      ),
    )
    const batch = join(tmp.dir, `s${seed}.jsonl`)
    writeFileSync(batch, paths.map((p, i) => JSON.stringify({ seq: i + 1, output_file: p })).join('\n'))
    const r = bijotel(['replay', '--db', db, '--batch', batch, '--json'])
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.at(-1), r.stderr).toMatchObject({ summary: { lines: 40, matched: 40 } })
    expect(r.code).toBe(0)
  })
})
