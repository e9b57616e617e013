// `bijotel list`, `inspect` and `stats` against an independent Python re-implementation of the
// reference's commands (testdata/pybrowse.py, written from §4.10): the same text, byte for byte, on
// the shared fixtures and on a written chain with blocked, warned and priced rows, odd attribute
// values, non-ASCII text, a CAS table and the policy's daily state. Beyond the reference: `list`
// filters before LIMIT/OFFSET (a full page where the reference returns a short one), `inspect` says
// whether the row verifies when a key is given, and the exit codes of §4.11 on bad input.
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyFixture, scratchDir, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, fingerprintFolder, REPO_ROOT, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('browse')
const before = fingerprintFolder()
afterAll(() => {
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})
beforeAll(() => ensureBuilt())

const hasPython = spawnSync('python3', ['--version']).status === 0
const PRICES_JSON = join(REPO_ROOT, 'src', 'main', 'python', 'prices.json')

let n = 0
/** The oracle's output for a command, run on a private copy of the chain. */
function oracle(
  cmd: string,
  db: string,
  args: string[],
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', [join(__dirname, 'testdata', 'pybrowse.py'), cmd, db, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PRICES_JSON },
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function copyOf(fixture: string): string {
  return copyFixture(fixture, scratch.dir, `${fixture}-${++n}.db`)
}

const LIST_ARGS: string[][] = [
  ['--limit', '-1'],
  ['--model', 'claude-haiku-4-5-20251001', '--limit', '4', '--offset', '2'],
  ['--since', '2025-11-25'],
  ['--blocked'],
  ['--rule', 'max_tokens'],
]

describe.skipIf(!hasPython)('the same text as the reference on the fixtures', () => {
  for (const name of ['clean', 'wal-tail', 'odd-non-json-body']) {
    it(`${name}: list, stats and inspect`, () => {
      const copy = copyOf(name)
      for (const args of LIST_ARGS) {
        const r = bijotel(['list', '--db', dbPath(name), ...args])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout, args.join(' ')).toBe(oracle('list', copy, args).stdout)
      }
      const s = bijotel(['stats', '--db', dbPath(name)])
      expect([s.code, s.stdout]).toEqual([0, oracle('stats', copy, []).stdout])
      for (const id of ['1', '57', '240']) {
        const i = bijotel(['inspect', '--db', dbPath(name), id])
        expect(i.code, i.stderr).toBe(0)
        expect(i.stdout, id).toBe(oracle('inspect', copy, [id]).stdout)
      }
    })
  }
})

/** A chain with what the fixtures lack: policy attributes, odd values, CAS and policy tables. */
function oddChain(): string {
  const key = Buffer.from(SECRETS['primary']!, 'hex')
  const path = join(scratch.dir, `odd-${++n}.db`)
  const t0 = 1_764_000_000_999_999_500n
  const models = ['claude-haiku-4-5', 'claude-opus-4-7', 'gpt-4o', '', null, 5, 'claude-sonnet-4-6']
  const rows: RowSpec[] = Array.from({ length: 60 }, (_, i) => {
    const attrs: Record<string, unknown> = {
      'gen_ai.request.model': models[i % models.length],
      'gen_ai.usage.input_tokens': i % 9 === 0 ? null : (i * 37) % 500,
      'gen_ai.usage.output_tokens': i % 11 === 0 ? 0 : (i * 13) % 300,
      note: `ünïcødé ✓ ${i} "quoted" \\ tab\t`,
      ratio: i / 7,
      whole: 1.5e21,
      tiny: 1e-7,
    }
    if (i % 5 === 0) attrs['bijotel.blocked'] = true
    if (i % 5 === 1) attrs['bijotel.blocked'] = 'yes'
    if (i % 4 === 2) attrs['bijotel.policy.warning'] = 'max_tokens'
    if (i % 6 === 3) attrs['bijotel.policy.rule'] = 'max_tokens'
    if (i === 7) {
      attrs['gen_ai.usage.input_tokens'] = 0
      attrs['gen_ai.usage.output_tokens'] = 0
    }
    if (i === 8) {
      attrs['gen_ai.usage.input_tokens'] = 1
      attrs['gen_ai.usage.output_tokens'] = 0
    }
    return {
      ...spanRow({ timestamp_ns: t0 + BigInt(i) * 61_000_000_000n, attributes: attrs }),
      trace_id: (i + 1).toString(16).padStart(32, 'a'),
      span_id: (i % 3 === 0 ? 'dup' : `${i}`).padStart(16, '0'),
    }
  })
  writeChain(path, key, rows)
  const db = new Database(path)
  try {
    db.exec(`CREATE TABLE cas (body_hash TEXT PRIMARY KEY, body BLOB NOT NULL, first_seen_ns INTEGER NOT NULL,
                               ref_count INTEGER NOT NULL DEFAULT 1);
             CREATE TABLE policy_daily_state (date TEXT PRIMARY KEY, total_tokens INTEGER NOT NULL DEFAULT 0);`)
    for (let i = 0; i < 10; i++) {
      db.prepare('UPDATE chain SET semantic_body_hash = ? WHERE seq = ?').run(
        `${i}`.repeat(64).slice(0, 64),
        i + 1,
      )
      if (i % 2 === 0)
        db.prepare('INSERT INTO cas VALUES (?, ?, ?, ?)').run(
          `${i}`.repeat(64).slice(0, 64),
          Buffer.from('{}'),
          1764000000999999999n,
          i + 1,
        )
    }
    for (let d = 1; d <= 9; d++)
      db.prepare('INSERT INTO policy_daily_state VALUES (?, ?)').run(`2025-11-0${d}`, d * 123456)
  } finally {
    db.close()
  }
  return path
}

describe.skipIf(!hasPython)(
  'the same text as the reference on a chain with policy rows, odd values, CAS',
  () => {
    it('list with every filter, stats, inspect by seq and by span_id', () => {
      const db = oddChain()
      for (const args of [
        ...LIST_ARGS,
        ['--model', 'gpt-4o'],
        ['--blocked', '--limit', '3'],
        ['--since', '2025-11-24'],
      ]) {
        const r = bijotel(['list', '--db', db, ...args])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stdout, args.join(' ')).toBe(oracle('list', db, args).stdout)
      }
      expect(bijotel(['stats', '--db', db]).stdout).toBe(oracle('stats', db, []).stdout)
      for (const id of ['1', '3', '8', '9', '0000000000000dup', '0000000000000005']) {
        const i = bijotel(['inspect', '--db', db, id])
        const o = oracle('inspect', db, [id])
        expect([i.code, i.stdout], id).toEqual([o.code, o.stdout])
      }
    })
  },
)

describe('list: filters before the page is cut (reference §11.16)', () => {
  it('--blocked --limit 3 is three blocked rows, not the blocked ones among the newest three', () => {
    const db = oddChain()
    const r = bijotel(['list', '--db', db, '--blocked', '--limit', '3'])
    expect(r.code).toBe(0)
    const seqs = r.stdout
      .split('\n')
      .slice(2, -3)
      .map((l) => Number(l.split(' ')[0]))
    // Rows i % 5 == 0 (seq = i + 1) are the blocked ones: newest first 56, 51, 46.
    expect(seqs).toEqual([56, 51, 46])
    expect(r.stdout).toContain('(3 spans)')
  })
})

describe('inspect with a key: whether the row verifies', () => {
  const key = ['--secret-hex', SECRETS['primary']!]
  it('a clean row verifies (exit 0); an edited body does not (exit 3)', () => {
    const ok = bijotel(['inspect', '--db', dbPath('clean'), '57', ...key])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('=== Verification (with the candidate keys given) ===')
    expect(ok.stdout).toContain('link:       OK (prev_hash is the hmac_hash of seq 56, the row before it)')
    expect(ok.stdout.trimEnd().split('\n').at(-1)).toBe('Row VERIFIES.')
    const bad = bijotel(['inspect', '--db', dbPath('body-edit'), '57', ...key])
    expect(bad.code).toBe(3)
    expect(bad.stdout).toMatch(/body hash: {2}MISMATCH \(the body hashes to [0-9a-f]{16}\.\.\.\)/)
    expect(bad.stdout.trimEnd().split('\n').at(-1)).toBe('Row does NOT verify.')
    // Without a key: the reference's output exactly, nothing about verification.
    const plain = bijotel(['inspect', '--db', dbPath('body-edit'), '57'], {
      BIJOTEL_HMAC_SECRET: SECRETS['primary']!,
    })
    expect(plain.code).toBe(0)
    expect(plain.stdout).not.toContain('Verification')
  })

  it('a resealed row fails its HMAC under the chain key; the first row links to GENESIS', () => {
    const r = bijotel(['inspect', '--db', dbPath('resealed-tail'), '240', ...key])
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('hmac:       MISMATCH under every candidate key (1)')
    const first = bijotel(['inspect', '--db', dbPath('clean'), '1', ...key])
    expect(first.stdout).toContain('link:       OK (first row: prev_hash is GENESIS)')
  })
})

describe('errors and exit codes (reference §4.11)', () => {
  it('DB missing or not a chain: 1; no such row: 1; a bad --since: 2', () => {
    const missing = join(scratch.dir, 'nope.db')
    for (const cmd of [['list'], ['stats'], ['inspect', '1']]) {
      const r = bijotel([cmd[0]!, '--db', missing, ...cmd.slice(1)])
      expect([r.code, r.stderr]).toEqual([1, `ERROR: DB not found: ${missing}\n`])
      const bad = bijotel([cmd[0]!, '--db', dbPath('bad-not-sqlite'), ...cmd.slice(1)])
      expect(bad.code).toBe(1)
      expect(bad.stderr).toMatch(/^ERROR: .+\n$/)
    }
    const none = bijotel(['inspect', '--db', dbPath('clean'), 'ffffffffffffffff'])
    expect([none.code, none.stderr]).toEqual([1, 'No span found for: ffffffffffffffff\n'])
    expect(bijotel(['inspect', '--db', dbPath('clean'), '999']).code).toBe(1)
    for (const since of ['2025-13-01', 'yesterday', '2025-11-24T00:00:00Z']) {
      const r = bijotel(['list', '--db', dbPath('clean'), '--since', since])
      expect([r.code, r.stderr]).toEqual([2, 'ERROR: --since must be YYYY-MM-DD format\n'])
    }
    expect(bijotel(['list', '--db', dbPath('clean'), '--limit', 'x']).code).toBe(2)
  })
})

// Issue 36: the reference's `=== RAG Provenance ===` block (v2.6.0) for rows with bijotel.rag.*.
// A seeded generator of the attribute shapes Python formats without a traceback — counts of any
// type, missing/empty/None retriever and embedding, context tokens or not, 0–12 sources with
// missing, None, long, non-ASCII, list-typed ids, int/float/bool scores, sources as invalid JSON,
// as a JSON object, as a number or list instead of text — each row compared with the oracle.
function ragAttrs(i: number, rnd: () => number): Record<string, unknown> {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const a: Record<string, unknown> = { 'gen_ai.request.model': 'gpt-4o' }
  if (i % 7 === 6) return a // no RAG attributes: no block
  a['bijotel.rag.source_count'] = pick<unknown>([0, 3, 12, 2.5, 'seven', true, [1]])
  const ret = pick<unknown>([undefined, '', null, 'qdrant', 'pgvector/ß', 0])
  if (ret !== undefined) a['bijotel.rag.retriever_id'] = ret
  const emb = pick<unknown>([undefined, 'text-embedding-3-small', '', null])
  if (emb !== undefined) a['bijotel.rag.embedding_model'] = emb
  const tok = pick<unknown>([undefined, null, 720, 0, 1.5])
  if (tok !== undefined) a['bijotel.rag.total_context_tokens'] = tok
  const source = (): Record<string, unknown> => {
    const s: Record<string, unknown> = {}
    const doc = pick<unknown>([
      undefined,
      null,
      '',
      `sha256:${'ab'.repeat(40)}`,
      'doc-é-中-😀'.repeat(6),
      ['x', 'y'],
    ])
    if (doc !== undefined) s['document_id'] = doc
    const chunk = pick<unknown>([undefined, null, 0, 3, 'c7'])
    if (chunk !== undefined) s['chunk_index'] = chunk
    const sim = pick<unknown>([undefined, 0.8904, 1, 0.0005, 0.12345678, true, -0.5, 1e-7])
    if (sim !== undefined) s['similarity_score'] = sim
    const r = pick<unknown>([undefined, null, '', 'qdrant', 'bm25'])
    if (r !== undefined) s['retriever'] = r
    return s
  }
  const kind = pick(['list', 'list', 'list', 'bad-json', 'object', 'number', 'array', 'empty', 'none'])
  const list = Array.from({ length: Math.floor(rnd() * 13) }, source)
  if (kind === 'list') a['bijotel.rag.sources'] = JSON.stringify(list)
  if (kind === 'bad-json') a['bijotel.rag.sources'] = `[{"document_id": "x", ${i}`
  if (kind === 'object') a['bijotel.rag.sources'] = JSON.stringify({ document_id: 'x' })
  if (kind === 'number') a['bijotel.rag.sources'] = 42
  if (kind === 'array') a['bijotel.rag.sources'] = list
  if (kind === 'empty') a['bijotel.rag.sources'] = ''
  if (kind === 'none') a['bijotel.rag.sources'] = null
  return a
}

function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

describe.skipIf(!hasPython)("inspect prints the reference's RAG Provenance block", () => {
  it('generated RAG attribute shapes: the same text as the oracle, row by row', () => {
    const rnd = seededRandom(36)
    const path = join(scratch.dir, `rag-${++n}.db`)
    const rows: RowSpec[] = Array.from({ length: 32 }, (_, i) =>
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
        attributes: ragAttrs(i, rnd),
      }),
    )
    writeChain(path, Buffer.from(SECRETS['primary']!, 'hex'), rows)
    let blocks = 0
    let more = 0
    for (let seq = 1; seq <= rows.length; seq++) {
      const i = bijotel(['inspect', '--db', path, String(seq)])
      const o = oracle('inspect', path, [String(seq)])
      expect(o.code, o.stderr).toBe(0)
      expect([i.code, i.stdout], `seq ${seq}`).toEqual([o.code, o.stdout])
      if (i.stdout.includes('=== RAG Provenance ===')) blocks++
      if (/\n {2}\.\.\. and \d+ more\n/.test(i.stdout)) more++
    }
    expect(blocks).toBeGreaterThan(20)
    expect(more).toBeGreaterThan(0)
  }, 600_000)

  it('a source Python cannot format (not an object, a text score) gets an answer, not a traceback', () => {
    const path = join(scratch.dir, `rag-odd-${++n}.db`)
    const sources = JSON.stringify([
      'plain',
      { document_id: 'd', similarity_score: 'high' },
      { document_id: 7 },
    ])
    writeChain(path, Buffer.from(SECRETS['primary']!, 'hex'), [
      spanRow({
        timestamp_ns: 1_764_000_000_000_000_000n,
        attributes: { 'bijotel.rag.source_count': 3, 'bijotel.rag.sources': sources },
      }),
    ])
    const r = bijotel(['inspect', '--db', path, '1'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain(
      [
        '=== RAG Provenance ===',
        'source_count:   3',
        'retriever:      (none)',
        'embedding:      (none)',
        '  source 1: plain',
        '  source 2: doc=d  chunk=?  retriever=-  sim=high',
        '  source 3: doc=7  chunk=?  retriever=-  sim=0.000',
        '',
      ].join('\n'),
    )
  })
})

/** A model attribute of any JSON type, written as its JSON literal (floats Python spells its own way). */
const MODEL_LITERALS = [
  '1e-05',
  '1.5e-7',
  '1e16',
  '1E+22',
  '0.1',
  '-2.5',
  '12345678901234567891',
  '7',
  '1e400',
  '-1e400',
  'NaN',
  'true',
  '[]',
  '["gpt-4o", 1, null]',
  '["😀", 2.0, true, {"a": 1e-05}]',
  '{"k0": "x", "k1": 1e-05}',
  '{"name": {"v": [1.0, -0.0]}, "it\'s": false}',
  '{}',
  '"claude-haiku-4-5"',
  '"a long model name well past the twenty-seven characters the list keeps"',
]

describe.skipIf(!hasPython)(
  'a model attribute of any JSON type: list and inspect as Python prints str(model)',
  () => {
    it('generated rows (seeded): the same text as the oracle', () => {
      const rnd = seededRandom(1207)
      const path = join(scratch.dir, `models-${++n}.db`)
      const key = Buffer.from(SECRETS['primary']!, 'hex')
      const rows: RowSpec[] = Array.from({ length: 40 }, (_, i) => {
        const model = MODEL_LITERALS[Math.floor(rnd() * MODEL_LITERALS.length)]!
        const tokens =
          rnd() < 0.8 ? `,"gen_ai.usage.input_tokens":${10 + i},"gen_ai.usage.output_tokens":5` : ''
        const body = `{"attributes":{"gen_ai.request.model":${model}${tokens}},"name":"chat","x":${i}}`
        return {
          body: Buffer.from(body),
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          span_name: 'chat',
          span_kind: 'CLIENT',
          trace_id: `${i}`.padStart(32, '0'),
          span_id: `${i}`.padStart(16, '0'),
        }
      })
      writeChain(path, key, rows)
      const list = bijotel(['list', '--db', path, '--limit', '-1'])
      expect([list.code, list.stdout]).toEqual([0, oracle('list', path, ['--limit', '-1']).stdout])
      for (let seq = 1; seq <= rows.length; seq += 3) {
        const i = bijotel(['inspect', '--db', path, String(seq)])
        const o = oracle('inspect', path, [String(seq)])
        expect(o.code, o.stderr).toBe(0)
        expect([i.code, i.stdout], `seq ${seq}`).toEqual([o.code, o.stdout])
      }
    }, 600_000)
  },
)
