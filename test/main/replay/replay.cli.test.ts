// `bin/bijotel replay` end to end: every fixture replay case with --json, the reference's text output,
// messages and exit codes, the file decoding rules, and the extra row / prompt checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbPath, expected, FIXTURES, fingerprintFolder, fixtureNames, SECRETS } from '../testing/fixtures'
import { bijotel, ensureBuilt } from './testcli'

let tmp: string
let before: Map<string, string>
beforeAll(() => {
  ensureBuilt()
  tmp = mkdtempSync(join(tmpdir(), 'bijotel-replay-cli-'))
  before = fingerprintFolder()
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

const REPLAY_KEYS = ['match', 'original_hash', 'replay_hash', 'deterministic', 'model_version', 'reason']

describe('bijotel replay --json equals every fixture replay case', () => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    if (!exp.replay) continue
    for (const c of exp.replay) {
      it(`${name} seq ${c.seq} (${c.file})`, () => {
        const r = bijotel([
          'replay',
          '--db',
          dbPath(name),
          '--seq',
          String(c.seq),
          '--output-file',
          join(FIXTURES, c.file),
          '--json',
        ])
        expect(r.stderr).toBe('')
        const got = JSON.parse(r.stdout) as Record<string, unknown>
        expect(Object.keys(got)).toEqual(REPLAY_KEYS)
        expect(got).toEqual(c.expected)
        expect(r.code).toBe(c.expected['match'] ? 0 : 3)
      })
    }
  }
})

describe('text output, as Python prints it', () => {
  it('mismatch with a reason', () => {
    const r = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '8',
      '--output-file',
      join(FIXTURES, 'clean.replay-8.txt'),
    ])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe(
      [
        '=== Replay MISMATCH (seq=8) ===',
        '  original_hash:  bf704371a9b759f03e8ad46cf56c3bada5b8e8aa72b95bf1d8cd86f9954f738d',
        '  replay_hash:    cbb1415f2870786416869b500c91fc28203dc89a32746a3272b7882d73ba6110',
        '  deterministic:  True',
        '  model_version:  gpt-4o-mini-2024-07-18',
        "  reason:         output hash mismatch \u2014 re-execute against the SAME model version that produced the original ('gpt-4o-mini-2024-07-18') and verify the prompt hash before treating this as tampering",
        '',
      ].join('\n'),
    )
  })
  it('match (no reason line) and no metadata', () => {
    const m = bijotel(['replay', '--db', dbPath('clean'), '--seq', '106', '--output', 'Answer 105: Done.'])
    expect(m.code).toBe(0)
    expect(m.stdout).toBe(
      '=== Replay MATCH (seq=106) ===\n  original_hash:  ec1817d99eb699b1e14d4bfb6bc734d838389c6b59f5dce0423e776c4684a4ad\n' +
        '  replay_hash:    ec1817d99eb699b1e14d4bfb6bc734d838389c6b59f5dce0423e776c4684a4ad\n  deterministic:  False\n  model_version:  claude-haiku-4-5-20251001\n',
    )
    const n = bijotel(['replay', '--db', dbPath('clean'), '--seq', '2', '--output', 'x'])
    expect(n.code).toBe(3)
    expect(n.stdout).toContain('  original_hash:  (none \u2014 entry has no replay metadata)\n')
    expect(n.stdout).toContain('  model_version:  (unknown)\n')
    expect(n.stdout).toContain(
      '  reason:         chain entry has no bijotel.replay.output_hash (logged before v2.7.0 or replay metadata not attached)\n',
    )
  })
})

describe('errors and exit codes (§6.4 order)', () => {
  const cases: [string, string[], number, string][] = [
    [
      'no output',
      ['--db', dbPath('clean'), '--seq', '1'],
      2,
      "ERROR: pass exactly one of --output 'text' or --output-file PATH.\n",
    ],
    [
      'empty --output counts as absent',
      ['--db', dbPath('clean'), '--seq', '1', '--output', ''],
      2,
      "ERROR: pass exactly one of --output 'text' or --output-file PATH.\n",
    ],
    [
      'both outputs',
      ['--db', dbPath('clean'), '--seq', '1', '--output', 'a', '--output-file', 'b'],
      2,
      'ERROR: --output and --output-file are mutually exclusive.\n',
    ],
    [
      'DB missing',
      ['--db', join('nowhere', 'x.db'), '--seq', '1', '--output', 'a'],
      1,
      `ERROR: chain DB not found: ${join('nowhere', 'x.db')}\n`,
    ],
    [
      'output file missing',
      ['--db', dbPath('clean'), '--seq', '1', '--output-file', 'missing.txt'],
      1,
      'ERROR: --output-file not found: missing.txt\n',
    ],
    [
      'seq missing',
      ['--db', dbPath('clean'), '--seq', '999', '--output', 'a'],
      1,
      'ERROR: seq 999 not found in chain\n',
    ],
  ]
  for (const [what, args, code, err] of cases) {
    it(what, () => {
      const r = bijotel(['replay', ...args])
      expect(r.code).toBe(code)
      expect(r.stderr).toBe(err)
      expect(r.stdout).toBe('')
    })
  }
  it('empty --output with a file uses the file', () => {
    const r = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '1',
      '--output',
      '',
      '--output-file',
      join(FIXTURES, 'clean.replay-1.txt'),
    ])
    expect(r.code).toBe(0)
  })
  it('argument errors exit 2 with one line: bad or missing --seq, unknown flag', () => {
    for (const args of [
      ['--db', dbPath('clean'), '--seq', 'x', '--output', 'a'],
      ['--db', dbPath('clean'), '--output', 'a'],
      ['--db', dbPath('clean'), '--seq', '1', '--output', 'a', '--bogus'],
      ['--db', dbPath('clean'), '--seq', '1', '--output', 'a', '--raw'],
      ['--db', dbPath('clean'), '--seq', '1', '--output', 'a', '--secret-hex', 'zz'],
    ]) {
      const r = bijotel(['replay', ...args])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })
  it('argparse int forms for --seq', () => {
    expect(
      bijotel([
        'replay',
        '--db',
        dbPath('clean'),
        '--seq',
        ' 0_1 ',
        '--output-file',
        join(FIXTURES, 'clean.replay-1.txt'),
      ]).stdout,
    ).toContain('(seq=1)')
  })
  it('unreadable chains exit 1 with one line', () => {
    for (const bad of ['bad-not-sqlite', 'bad-empty', 'bad-no-chain-table', 'bad-truncated-file']) {
      const r = bijotel(['replay', '--db', join(FIXTURES, `${bad}.db`), '--seq', '1', '--output', 'a'])
      expect(r.code, bad).toBe(1)
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^ERROR: /)
    }
  })

  it('a table with seq and canonical_body is read as the reference reads it; the row check names what is missing', () => {
    // bad-missing-columns.db has seq, timestamp_ns and canonical_body: all a replay reads (§6.4).
    const db = join(FIXTURES, 'bad-missing-columns.db')
    const r = bijotel(['replay', '--db', db, '--seq', '1', '--output', 'a'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('  original_hash:  (none \u2014 entry has no replay metadata)\n')
    const keyed = bijotel([
      'replay',
      '--db',
      db,
      '--seq',
      '1',
      '--output',
      'a',
      '--secret-hex',
      SECRETS['primary']!,
    ])
    expect(keyed.stdout).toContain(
      '  row:            row not checked: the chain table has no canonical_hash, prev_hash, hmac_hash columns\n',
    )
    expect(keyed.code).toBe(3)
  })
})

describe('--output-file decoding', () => {
  const put = (name: string, data: string | Buffer): string => {
    const p = join(tmp, name)
    writeFileSync(p, data)
    return p
  }
  const replayHash = (args: string[]): string =>
    (
      JSON.parse(bijotel(['replay', '--db', dbPath('clean'), '--seq', '1', ...args, '--json']).stdout) as {
        replay_hash: string
      }
    ).replay_hash
  it('trailing newline kept, CRLF → LF, BOM kept; --raw hashes the bytes', () => {
    expect(replayHash(['--output-file', put('nl.txt', 'hello world\n')])).toBe(
      'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
    )
    expect(replayHash(['--output-file', put('crlf.txt', 'hello world\r\n')])).toBe(
      'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
    )
    expect(replayHash(['--output-file', put('crlf.txt', 'hello world\r\n'), '--raw'])).not.toBe(
      'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
    )
    expect(replayHash(['--output-file', put('plain.txt', 'hello world')])).toBe(
      'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    )
    expect(replayHash(['--output-file', put('bom.txt', '\ufeffhello world')])).not.toBe(
      'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    )
  })
  it('a CRLF copy of a multi-line output matches as Python reads it, not with --raw', () => {
    const f = put('rot1.txt', 'Answer 0: - a\r\n- b\r\n- c\r\n')
    const py = bijotel(['replay', '--db', dbPath('rotation'), '--seq', '1', '--output-file', f])
    const raw = bijotel(['replay', '--db', dbPath('rotation'), '--seq', '1', '--output-file', f, '--raw'])
    expect(py.code).toBe(0)
    expect(raw.code).toBe(3)
    expect(raw.stdout).toContain('  input:          raw bytes of')
  })
  it('invalid UTF-8 (with or without a NUL, which is text): one-line error, exit 1', () => {
    for (const data of [Buffer.from([0x41, 0xff, 0x42]), Buffer.from([0x61, 0x00, 0xc3])]) {
      const r = bijotel([
        'replay',
        '--db',
        dbPath('clean'),
        '--seq',
        '1',
        '--output-file',
        put('bad.bin', data),
      ])
      expect(r.code).toBe(1)
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^ERROR: --output-file .*not valid UTF-8/)
    }
  })
})

describe('the extra checks: row verification and prompt', () => {
  const primary = SECRETS['primary']!
  it('with a secret: row_verified/row_detail appended after the six reference keys', () => {
    const r = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '1',
      '--output-file',
      join(FIXTURES, 'clean.replay-1.txt'),
      '--secret-hex',
      primary,
      '--json',
    ])
    const got = JSON.parse(r.stdout) as Record<string, unknown>
    expect(Object.keys(got)).toEqual([...REPLAY_KEYS, 'row_verified', 'row_detail'])
    expect(got['row_verified']).toBe(true)
    expect(r.code).toBe(0)
    const text = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '1',
      '--output-file',
      join(FIXTURES, 'clean.replay-1.txt'),
      '--secret-hex',
      primary,
    ])
    expect(text.stdout).toMatch(
      /\n {2}row: {12}row verifies: body hash ok, prev_hash is GENESIS, HMAC reproduced by key #1\n$/,
    )
  })
  it('a match on a row that does not verify exits 3 with a warning', () => {
    const r = bijotel([
      'replay',
      '--db',
      dbPath('hash-edit'),
      '--seq',
      '57',
      '--output',
      'Answer 56: - a\n- b\n- c\n',
      '--secret-hex',
      primary,
    ])
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('=== Replay MATCH (seq=57) ===')
    expect(r.stdout).toContain('row does NOT verify: hmac_hash mismatch')
    expect(r.stdout).toContain('WARNING')
  })
  it('--prompt / --prompt-file', () => {
    const ok = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '1',
      '--output',
      'Answer 0: Done.',
      '--prompt',
      'What is 17 * 23? Answer with the number only. [case 0]',
      '--json',
    ])
    expect(JSON.parse(ok.stdout)).toMatchObject({ match: true, prompt_match: true })
    expect(ok.code).toBe(0)
    const pf = put('prompt.txt', 'not the prompt')
    const bad = bijotel([
      'replay',
      '--db',
      dbPath('clean'),
      '--seq',
      '1',
      '--output',
      'Answer 0: Done.',
      '--prompt-file',
      pf,
    ])
    expect(bad.code).toBe(3)
    expect(bad.stdout).toContain('  prompt:         prompt hash ')
    expect(
      bijotel([
        'replay',
        '--db',
        dbPath('clean'),
        '--seq',
        '1',
        '--output',
        'a',
        '--prompt',
        'a',
        '--prompt-file',
        pf,
      ]).code,
    ).toBe(2)
  })
  function put(name: string, data: string): string {
    const p = join(tmp, name)
    writeFileSync(p, data)
    return p
  }
})
