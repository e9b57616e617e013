// Hostile content: chains whose bodies, columns, seqs and secrets are built to break a verifier.
// Each input must give a clear verdict or one clean error line — through the library and the CLI —
// within a time and memory bound. Chains are synthetic, written by ./chainkit into scratch folders.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FindingKind, VerifyVerdict } from '../../../src/shared/verify-types'
import { ChainFile } from '../../../src/main/chain/reader'
import { AuditError } from '../../../src/main/base/errors'
import { SECRETS } from '../testing/fixtures'
import { parseSecret, parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { assembleVerdict } from '../../../src/main/verify/verdict'
import { sqliteSource } from '../testing/sources'
import type { PartitionResult } from '../../../src/main/verify/partition'
import {
  copyFixture,
  openScratch,
  scratchDir,
  seal,
  sha256,
  spanBody,
  spanRow,
  spanRows,
  writeChain,
  type RowSpec,
} from './chainkit'
import { classify, cliAvailable, runCli, type CliRun } from './cli-runner'
import { deepJson } from './fuzz'

const KEY_HEX = 'a5'.repeat(32)
const KEY = Buffer.from(KEY_HEX, 'hex')
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])
const cli = cliAvailable()
/** Bounds for every CLI run here: 60 s, 512 MB of JS heap, 4 GB of address space. */
const LIMITS = { timeoutMs: 60_000, heapMb: 512, addressSpaceMb: 4096 }

let work: ReturnType<typeof scratchDir>
let n = 0
beforeAll(() => {
  work = scratchDir('hostile')
})
afterAll(() => work.cleanup())

function chain(rows: RowSpec[], opts: { loose?: boolean } = {}): string {
  const p = join(work.dir, `h${n++}.db`)
  writeChain(p, KEY, rows, opts)
  return p
}

async function lib(path: string, k = keys): Promise<{ verdict?: VerifyVerdict; error?: unknown }> {
  try {
    const c = await ChainFile.open(path)
    try {
      return { verdict: await verifyRows(sqliteSource(c), k, { workers: 1 }) }
    } finally {
      c.close()
    }
  } catch (error) {
    return { error }
  }
}

function verifyCli(path: string, extra: string[] = [], secret = KEY_HEX): CliRun {
  return runCli(['verify', '--db', path, '--secret-hex', secret, '--json', ...extra], LIMITS)
}

const kinds = (v: VerifyVerdict): string[] => v.findings.map((f) => `${f.kind}@${f.from_seq}`)

/**
 * The CLI (run first: a child process under time and memory bounds, so a hang fails the test instead
 * of stalling the suite) and the library agree: exit 0/3 with the same verdict as JSON.
 */
async function expectVerdict(path: string, check: (v: VerifyVerdict) => void): Promise<void> {
  let cliVerdict: VerifyVerdict | undefined
  if (cli) {
    const run = verifyCli(path)
    expect(classify(run), run.stderr).toEqual({ outcome: 'verdict' })
    cliVerdict = JSON.parse(run.stdout) as VerifyVerdict
    expect(run.status).toBe(cliVerdict.valid ? 0 : 3)
  }
  const r = await lib(path)
  expect(r.error, String(r.error)).toBeUndefined()
  check(r.verdict!)
  if (cliVerdict) {
    expect(cliVerdict.findings).toEqual(r.verdict!.findings)
    expect(cliVerdict.entries).toBe(r.verdict!.entries)
  }
}

/** Exactly one ERROR line (exit 1) from the CLI — run first, bounded — and a clean AuditError from the library. */
async function expectCleanError(path: string, code: string, pattern: RegExp): Promise<void> {
  if (cli) {
    const run = verifyCli(path)
    expect(classify(run), run.stderr).toEqual({ outcome: 'clean_error' })
    expect(run.status).toBe(1)
    expect(run.stderr).toMatch(pattern)
  }
  const r = await lib(path)
  expect(r.error).toBeInstanceOf(AuditError)
  expect((r.error as AuditError).code).toBe(code)
  expect((r.error as AuditError).message).toMatch(pattern)
  expect((r.error as AuditError).message).not.toContain('\n')
}

describe('hostile bodies (sealed correctly: the verdict must be VALID)', () => {
  it('a 50 MB span body and a 50 MB non-JSON body verify within the bounds', async () => {
    const big = 'x'.repeat(50 * 1024 * 1024)
    const rows = spanRows(3)
    const p = chain([
      rows[0]!,
      spanRow({ timestamp_ns: 1_764_000_001_000_000_000n, attributes: { big } }),
      { ...rows[2]!, body: Buffer.alloc(50 * 1024 * 1024, 0xab) },
    ])
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(true)
      expect(v.entries).toBe(3)
    })
  }, 120_000)

  it('100 000-level nested JSON, bare and inside a span body', async () => {
    const deep = deepJson(100_000)
    const span = `{"attributes":{"deep":${deep}},"end_time_ns":"3000000000","kind":"CLIENT","name":"chat gpt-test","start_time_ns":"1","status_code":"UNSET","status_description":null}`
    const p = chain([
      { body: Buffer.from(deep), timestamp_ns: 1n },
      spanRow({ timestamp_ns: 2_000_000_000n, attributes: { x: 1 } }),
      { body: Buffer.from(span), timestamp_ns: 3_000_000_000n },
      { body: Buffer.from('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)), timestamp_ns: 4n },
    ])
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(true)
      expect(v.entries).toBe(4)
    })
  })

  it('invalid UTF-8, NUL bytes, HTML/script strings', async () => {
    const p = chain([
      { body: Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80, 0xc0, 0xaf]), timestamp_ns: 1n },
      { body: Buffer.from('{"attributes":{"a":"\u0000"}}\u0000\u0000'), timestamp_ns: 2n },
      spanRow({ timestamp_ns: 3_000_000_000n, name: 'a\u0000b', attributes: { s: '\u0000' } }),
      spanRow({
        timestamp_ns: 4_000_000_000n,
        name: '<script>alert(1)</script>',
        attributes: { html: '<img src=x onerror=alert(1)>' },
      }),
      { body: Buffer.alloc(0), timestamp_ns: 5n },
    ])
    await expectVerdict(p, (v) => {
      expect(kinds(v)).toEqual([])
      expect(v.entries).toBe(5)
    })
  })

  it('a NUL-bearing span_name that differs from the sealed name is a column mismatch', async () => {
    const r = spanRow({ timestamp_ns: 3_000_000_000n, name: 'a\u0000b' })
    const p = chain([{ ...r, span_name: 'a\u0000c' }])
    await expectVerdict(p, (v) => expect(kinds(v)).toEqual(['column_mismatch@1']))
  })

  it('huge numbers in a body are bytes to the verifier (sealed: VALID)', async () => {
    const p = chain([
      { body: Buffer.from(`{"n":${'9'.repeat(10_000)},"e":1e999999,"t":-1e-400}`), timestamp_ns: 1n },
      {
        body: Buffer.from(
          spanBody({ timestamp_ns: 5n })
            .toString()
            .replace('"end_time_ns":"5"', `"end_time_ns":"${'9'.repeat(400)}"`),
        ),
        timestamp_ns: 5n,
      },
    ])
    // The second body's sealed end time is 400 nines; the column says 5: a column mismatch, no crash.
    await expectVerdict(p, (v) => expect(kinds(v)).toEqual(['column_mismatch@2']))
  })

  it('keys after status_description: a repeated name or end time is judged by its last value', async () => {
    const withTail = (ts: bigint, tail: string): RowSpec => {
      const r = spanRow({ timestamp_ns: ts })
      return { ...r, body: Buffer.from(r.body.toString().replace(/\}$/, `${tail}}`)) }
    }
    const p = chain([
      withTail(1_000_000_000n, ',"x_extra":{"a":[1,"}"]}'),
      withTail(2_000_000_000n, ',"name":"other"'),
      withTail(3_000_000_000n, ',"end_time_ns":"7"'),
      withTail(4_000_000_000n, ',"kind":"SERVER"'),
      withTail(5_000_000_000n, ',"name":"chat gpt-test"'),
    ])
    // Row 1 only adds an unrelated key; row 5 repeats the same name: both agree with their columns.
    await expectVerdict(p, (v) => expect(kinds(v)).toEqual(['column_mismatch@2']))
    const r = await lib(p)
    expect(r.verdict!.findings).toEqual([{ kind: 'column_mismatch', from_seq: 2, to_seq: 4, count: 3 }])
  })
})

describe('hostile hash columns', () => {
  it('a canonical_hash column changed under an hmac sealed over the true body hash: both mismatch', async () => {
    const rows = spanRows(3)
    const mac1 = seal(KEY, '0'.repeat(64), sha256(rows[0]!.body))
    const p = chain([
      rows[0]!,
      { ...rows[1]!, canonical_hash: 'f'.repeat(64), hmac_hash: seal(KEY, mac1, sha256(rows[1]!.body)) },
      rows[2]!,
    ])
    await expectVerdict(p, (v) => {
      const got = v.findings.map((f) => `${f.kind}@${f.from_seq}-${f.to_seq}`).sort()
      expect(got).toEqual(['body_hash_mismatch@2-2', 'hmac_mismatch@2-2'])
    })
  })

  it('seqs that jump while every link and seal holds: the gap is still found', async () => {
    const p = chain(spanRows(5).map((r, i) => ({ ...r, seq: BigInt([1, 2, 5, 6, 7][i]!) })))
    await expectVerdict(p, (v) => {
      expect(v.findings).toEqual([{ kind: 'seq_gap', from_seq: 5, to_seq: 5, count: 1, missing: 2 }])
    })
  })

  it('a prev_hash whose bytes match the link only as latin1 (invalid UTF-8 TEXT) is a broken link', async () => {
    // Row 1 stores an hmac with an "é" (valid UTF-8, C3 A9); row 2 stores prev_hash as the single
    // byte E9 plus the same 63 characters (invalid UTF-8 as TEXT: it reads as U+FFFD…) and an hmac
    // sealed over row 1's real value. Byte for byte against the characters it would pass.
    const odd = 'é' + 'a'.repeat(63)
    const rows = spanRows(3)
    const ch2 = sha256(rows[1]!.body)
    const p = chain([
      { ...rows[0]!, hmac_hash: odd },
      { ...rows[1]!, hmac_hash: seal(KEY, odd, ch2) },
      rows[2]!,
    ])
    const db = openScratch(p)
    db.prepare('UPDATE chain SET prev_hash = CAST(? AS TEXT) WHERE seq = 2').run(
      Buffer.concat([Buffer.from([0xe9]), Buffer.from('a'.repeat(63))]),
    )
    db.close()
    await expectVerdict(p, (v) => {
      const got = v.findings.map((f) => `${f.kind}@${f.from_seq}-${f.to_seq}`).sort()
      expect(got).toEqual(['hmac_mismatch@1-2', 'link_mismatch@2-2'])
    })
  })
})

describe('hostile timestamps', () => {
  it('negative, int64 max and int64 min timestamps that agree with the body are VALID', async () => {
    const p = chain(
      [-5n, 2n ** 63n - 1n, -(2n ** 63n) + 2_000_000n].map((ts) => spanRow({ timestamp_ns: ts })),
    )
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(true)
      expect(v.entries).toBe(3)
    })
  })

  it('TEXT, REAL and beyond-int64 values in timestamp_ns are column mismatches, not crashes', async () => {
    const base = [1n, 2n, 3n, 4n].map((i) => spanRow({ timestamp_ns: 1_764_000_000_000_000_000n + i }))
    const beyond = spanRow({ timestamp_ns: 18_446_744_073_709_551_617n })
    const p = chain([
      { ...base[0]!, timestamp_ns: 'yesterday' },
      { ...base[1]!, timestamp_ns: 1.5 },
      { ...beyond, timestamp_ns: Number(18_446_744_073_709_551_617n) }, // stored as a REAL: 2^64 + 1 does not fit int64
      { ...base[3]!, timestamp_ns: '' },
    ])
    await expectVerdict(p, (v) => expect(kinds(v)).toEqual(['column_mismatch@1']))
    const r = await lib(p)
    expect(r.verdict!.findings).toEqual([{ kind: 'column_mismatch', from_seq: 1, to_seq: 4, count: 4 }])
  })
})

describe('hostile seqs', () => {
  it('negative seqs that are contiguous from GENESIS give a clear verdict (VALID, first_seq -3)', async () => {
    const p = chain(spanRows(5).map((r, i) => ({ ...r, seq: BigInt(i - 3) })))
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(true)
      expect(v.first_seq).toBe(-3)
      expect(v.last_seq).toBe(1)
    })
  })

  it('seq = 2^62 after seq 1..5: seq_out_of_range + seq_gap at that row, exit 3', async () => {
    const rows = spanRows(6).map((r, i) => ({ ...r, seq: i < 5 ? BigInt(i + 1) : 2n ** 62n }))
    const p = chain(rows)
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(false)
      expect(v.first_bad_seq).toBe(Number(2n ** 62n))
      expect(v.findings.map((f) => f.kind).sort()).toEqual(['seq_gap', 'seq_out_of_range'])
    })
  })

  it('seqs at int64 max: out of range, with a trusted boundary, no overflow', async () => {
    const p = chain(spanRows(2).map((r, i) => ({ ...r, seq: 2n ** 63n - 2n + BigInt(i) })))
    await expectVerdict(p, (v) => {
      expect(v.findings.map((f) => f.kind)).toEqual(['seq_out_of_range'])
      expect(v.boundary?.kind).toBe('trusted')
    })
  })

  // Engine fix: a table rebuilt without INTEGER PRIMARY KEY can hold non-integer seqs. Range queries
  // skipped TEXT/BLOB/NULL seqs silently (a VALID verdict that never looked at those rows) and REAL
  // seqs crashed BigInt arithmetic. They are now refused at open with one clear line.
  for (const [label, bad] of [
    ['TEXT', 'abc'],
    ['REAL', 2.5],
    ['NULL', null],
    ['BLOB', Buffer.from('x')],
  ] as const) {
    it(`a ${label} seq in a rebuilt table is a clean error, not a silent skip`, async () => {
      const p = chain(
        spanRows(3).map((r, i) => ({ ...r, seq: i < 2 ? BigInt(i + 1) : bad })),
        { loose: true },
      )
      await expectCleanError(
        p,
        'corrupt',
        /1 row\(s\) of the chain table .* have a seq that is not an integer/,
      )
    })
  }

  it('a loose table with integer seqs but NULL / wrong-typed hash columns is a verdict', async () => {
    const rows = spanRows(4)
    const p = chain(
      [
        rows[0]!,
        { ...rows[1]!, canonical_hash: null, prev_hash: null, hmac_hash: null },
        {
          ...rows[2]!,
          body: null as unknown as Buffer,
          canonical_hash: 5n,
          prev_hash: Buffer.from('ab'),
          hmac_hash: 1.5,
        },
        rows[3]!,
      ].map((r, i) => ({ ...r, seq: BigInt(i + 1) })),
      { loose: true },
    )
    await expectVerdict(p, (v) => {
      expect(v.valid).toBe(false)
      expect(v.first_bad_seq).toBe(2)
      const at = (s: number): FindingKind[] =>
        v.findings
          .filter((f) => f.from_seq <= s && f.to_seq >= s)
          .map((f) => f.kind)
          .sort()
      expect(at(2)).toEqual(['body_hash_mismatch', 'hmac_mismatch', 'link_mismatch'])
      expect(at(3)).toEqual(expect.arrayContaining(['body_hash_mismatch', 'hmac_mismatch', 'link_mismatch']))
    })
  })
})

describe('hostile schemas', () => {
  // Engine fix: a `chain` view was accepted; a recursive view never finishes (the CLI hung until
  // killed) and its rows are computed, not stored evidence. Views are now refused at open.
  it('a recursive view named chain is refused at once instead of hanging', async () => {
    const p = join(work.dir, 'view.db')
    const db = openScratch(p)
    db.exec(`CREATE VIEW chain AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
             SELECT x AS seq, 0 AS timestamp_ns, '' AS trace_id, '' AS span_id, '' AS span_name, NULL AS span_kind,
                    x'00' AS canonical_body, '' AS canonical_hash, '' AS prev_hash, '' AS hmac_hash, NULL AS semantic_body_hash FROM c`)
    db.close()
    const t0 = Date.now()
    await expectCleanError(p, 'no_chain_table', /is a view \(computed rows\), not a stored table/)
    expect(Date.now() - t0).toBeLessThan(20_000)
  })

  it('a generated canonical_body, a WITHOUT ROWID table with TEXT seqs, an FTS5 table: each clear', async () => {
    const gen = join(work.dir, 'gen.db')
    let db = openScratch(gen)
    db.exec(`CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns, trace_id, span_id, span_name, span_kind, x,
             canonical_body GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL, canonical_hash, prev_hash, hmac_hash, semantic_body_hash)`)
    db.prepare(
      'INSERT INTO chain (seq, timestamp_ns, canonical_hash, prev_hash, hmac_hash) VALUES (1, 1, 2, 3, 4)',
    ).run()
    db.close()
    await expectCleanError(gen, 'missing_columns', /computed \(generated\) columns.*canonical_body/)

    const wr = join(work.dir, 'without-rowid.db')
    db = openScratch(wr)
    db.exec(`CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
             canonical_hash, prev_hash, hmac_hash, semantic_body_hash) WITHOUT ROWID`)
    db.prepare(
      "INSERT INTO chain (seq, timestamp_ns, canonical_body, canonical_hash, prev_hash, hmac_hash) VALUES ('abc', 1, x'00', 2, 3, 4)",
    ).run()
    db.close()
    await expectCleanError(wr, 'corrupt', /seq that is not an integer/)

    const fts = join(work.dir, 'fts.db')
    db = openScratch(fts)
    db.exec(`CREATE VIRTUAL TABLE chain USING fts5(seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
             canonical_hash, prev_hash, hmac_hash, semantic_body_hash)`)
    db.prepare('INSERT INTO chain VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)').run()
    db.close()
    await expectVerdict(fts, (v) => expect(v.valid).toBe(false))
  })

  it('an empty chain table is VALID with 0 entries', async () => {
    await expectVerdict(chain([]), (v) => {
      expect(v.valid).toBe(true)
      expect(v.entries).toBe(0)
      expect(v.first_bad_seq).toBeNull()
    })
  })
})

describe('many findings', () => {
  // Engine fix: first_bad_seq was Math.min(...findings): with more than ~120k separate findings the
  // spread overflowed the stack and the CLI printed "internal error" (exit 1) for a broken chain.
  it('assembleVerdict takes 300 000 separate findings', () => {
    const findings = Array.from({ length: 300_000 }, (_, i) => ({
      value: 'body_hash_mismatch' as const,
      from_seq: 2 * i + 2,
      to_seq: 2 * i + 2,
      count: 1,
      missing: 0,
      firstOrd: 2 * i + 1,
      lastOrd: 2 * i + 1,
    }))
    const part: PartitionResult = {
      rows: 600_000,
      firstSeq: 1,
      lastSeq: 600_000,
      lastHmac: 'x',
      findings,
      segments: [],
      boundary: null,
    }
    const v = assembleVerdict([part], () => undefined, {}, 600_000)
    expect(v.first_bad_seq).toBe(2)
    expect(v.findings).toHaveLength(300_000)
  })

  it.runIf(cli)(
    'a chain with ~150 000 separate findings gives exit 3 and the right first bad seq through the CLI',
    () => {
      // Every other row: body hash wrong and timestamp column wrong (2 findings), plus a seq gap (3).
      const rows = spanRows(100_000).map((r, i) => {
        const seq = BigInt(i + 1 + Math.floor((i + 1) / 2))
        return i % 2 === 1 ? { ...r, seq, canonical_hash: 'f'.repeat(64), timestamp_ns: 5n } : { ...r, seq }
      })
      const p = chain(rows)
      const run = verifyCli(p)
      expect(classify(run), run.stderr).toEqual({ outcome: 'verdict' })
      expect(run.status).toBe(3)
      const v = JSON.parse(run.stdout) as VerifyVerdict
      expect(v.findings.length).toBeGreaterThan(140_000)
      expect(v.first_bad_seq).toBe(3)
    },
    120_000,
  )
})

describe('hostile secrets (CLI exit 2 with one ERROR line that never echoes the secret)', () => {
  it('library: odd length, invalid hex, empty, whitespace-only', () => {
    const code = (value: string): string | undefined => {
      try {
        parseSecret({ encoding: 'hex', value }, 0)
        return undefined
      } catch (e) {
        return (e as AuditError).code
      }
    }
    expect(code('abc')).toBe('bad_secret')
    expect(code('zz')).toBe('bad_secret')
    expect(code('é')).toBe('bad_secret')
    expect(code('')).toBe('no_secret')
    expect(code('   ')).toBe('no_secret')
    expect(code('a5 a5\n')).toBeUndefined()
  })

  it.runIf(cli)('CLI', () => {
    const p = copyFixture('clean', work.dir, 'secrets-clean.db')
    const bad = ['abc', 'zz', 'é', 'a5a5a', '0x' + 'a5'.repeat(32), 'g'.repeat(64)]
    for (const s of bad) {
      const run = runCli(['verify', '--db', p, '--secret-hex', s], LIMITS)
      expect(classify(run, [2]), `${s}: ${run.stderr}`).toEqual({ outcome: 'clean_error' })
      expect(run.status).toBe(2)
      if (s.length >= 3) expect(run.stderr).not.toContain(s)
    }
    for (const args of [
      ['--secret-hex', ''],
      ['--secret-hex', '   '],
      ['--secret-text', ''],
    ]) {
      const run = runCli(['verify', '--db', p, ...args], LIMITS)
      expect(classify(run, [2]), run.stderr).toEqual({ outcome: 'clean_error' })
    }
    const env = runCli(['verify', '--db', p], { ...LIMITS, env: { BIJOTEL_HMAC_SECRET: 'zz' } })
    expect(classify(env, [2]), env.stderr).toEqual({ outcome: 'clean_error' })
    // A flag without its value is a usage error (argparse style: error line + help pointer), no stack.
    const missing = runCli(['verify', '--db', p, '--secret-hex'], LIMITS)
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/^bijotel verify: error: .*\n\(see: bijotel verify --help\)\n$/)
    // Valid hex but the wrong key, whitespace between pairs, a 10 000-byte key: verdicts (exit 3 / 0).
    const primary = SECRETS['primary']!
    for (const [secret, want] of [
      ['a5'.repeat(32), 3],
      [primary.replace(/(..)/g, '$1 '), 0],
      ['ab'.repeat(10_000), 3],
      [primary.toUpperCase(), 0],
    ] as const) {
      const run = runCli(['verify', '--db', p, '--secret-hex', secret], LIMITS)
      expect(run.status, `${secret.slice(0, 12)}…: ${run.stderr}`).toBe(want)
    }
  })
})

describe.runIf(cli)('hostile paths (CLI exit 1, one ERROR line)', () => {
  it('directory, missing file, /dev/null, FIFO, symlink loop, 0-byte file, garbage', () => {
    const d = join(work.dir, 'paths')
    mkdirSync(d)
    const fifo = join(d, 'fifo.db')
    const fifoMade = spawnSync('mkfifo', [fifo]).status === 0
    symlinkSync(join(d, 'loop-b'), join(d, 'loop-a'))
    symlinkSync(join(d, 'loop-a'), join(d, 'loop-b'))
    writeFileSync(join(d, 'empty.db'), '')
    writeFileSync(join(d, 'garbage.db'), Buffer.alloc(8192, 0x41))
    const targets = [
      d,
      join(d, 'missing.db'),
      '/dev/null',
      join(d, 'loop-a'),
      join(d, 'empty.db'),
      join(d, 'garbage.db'),
    ]
    if (fifoMade) targets.push(fifo)
    for (const t of targets) {
      const run = runCli(['verify', '--db', t, '--secret-hex', KEY_HEX], { ...LIMITS, timeoutMs: 15_000 })
      expect(classify(run), `${t}: ${run.stderr}`).toEqual({ outcome: 'clean_error' })
      expect(run.status).toBe(1)
    }
  })
})

describe('a damaged -wal reads as SQLite recovers it (a truncation), visible with a prior head', () => {
  it('frames after a corrupted one are dropped; --prior of the full chain reports the cut', async () => {
    const p = copyFixture('wal-tail', work.dir, 'wal-damaged.db')
    const primary = parseSecrets([{ encoding: 'hex', value: SECRETS['primary']! }])
    const full = await lib(p, primary)
    expect(full.verdict!.valid).toBe(true)
    expect(full.verdict!.entries).toBe(240)
    const wal = readFileSync(`${p}-wal`)
    const ps = readFileSync(p).readUInt16BE(16)
    // Damage the data of the middle frame: its checksum fails and SQLite stops replaying there.
    const frames = Math.floor((wal.length - 32) / (24 + ps))
    const at = 32 + Math.floor(frames / 2) * (24 + ps) + 24 + 100
    wal[at] = wal[at]! ^ 0xff
    writeFileSync(`${p}-wal`, wal)
    const cut = await lib(p, primary)
    expect(cut.verdict!.valid).toBe(true)
    expect(cut.verdict!.entries).toBeLessThan(240)
    const c = await ChainFile.open(p)
    try {
      const v = await verifyRows(sqliteSource(c), primary, {
        prior: { last_seq: full.verdict!.last_seq!, head_hmac: full.verdict!.head_hmac! },
      })
      expect(v.valid).toBe(false)
      expect(v.findings.map((f) => f.kind)).toEqual(['truncated'])
      expect(v.first_bad_seq).toBe(cut.verdict!.last_seq! + 1)
    } finally {
      c.close()
    }
  })
})
