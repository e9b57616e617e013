import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../../../src/main/chain/reader'
import { dbPath, fingerprintFolder, REPO_ROOT, SECRETS } from '../testing/fixtures'
import { hmacHex, sha256Hex } from '../../../src/main/chain/seal'
import { parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { sqliteSource } from '../testing/sources'
import { canonicalizeSpan, spanToCanonicalDict, spanToSemanticDict } from '../../../src/main/writer/canonical'
import { appendEvent, ChainWriter } from '../../../src/main/writer/chain-writer'
import { canonicalize } from '../../../src/main/chain/jcs'
import { BijotelChainSpanProcessor } from '../../../src/main/writer/processor'
import { GENESIS, STORED_SCHEMA } from '../../../src/main/chain/schema'

const X32 = Buffer.alloc(32, 'x')
const CI_HEX = '0011223344556677889900112233445566778899aabbccddeeff00112233aabb'
const CI = Buffer.from(CI_HEX, 'hex')

let tmp: string
let before: Map<string, string>
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bijotel-writer-test-'))
  before = fingerprintFolder()
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

interface Row {
  seq: bigint
  timestamp_ns: bigint
  trace_id: string
  span_id: string
  span_name: string
  span_kind: string | null
  canonical_body: Buffer
  canonical_hash: string
  prev_hash: string
  hmac_hash: string
  semantic_body_hash: string | null
}

async function readRows(path: string): Promise<Row[]> {
  const c = await ChainFile.open(path)
  try {
    return c.db.prepare('SELECT * FROM chain ORDER BY seq').safeIntegers(true).all() as Row[]
  } finally {
    c.close()
  }
}

async function schemaOf(path: string): Promise<Record<string, string>> {
  const c = await ChainFile.open(path)
  try {
    const rows = c.db.prepare('SELECT name, sql FROM sqlite_master ORDER BY name').all() as {
      name: string
      sql: string
    }[]
    return Object.fromEntries(rows.map((r) => [r.name, r.sql]))
  } finally {
    c.close()
  }
}

async function verify(path: string, secrets: Buffer[]) {
  const c = await ChainFile.open(path)
  try {
    return await verifyRows(
      sqliteSource(c),
      parseSecrets(secrets.map((s) => ({ encoding: 'hex', value: s.toString('hex') }))),
      { workers: 1 },
    )
  } finally {
    c.close()
  }
}

describe('reference vectors §12.1–12.2', () => {
  it('V1: span dict → JCS bytes, canonical_hash, HMAC', () => {
    const d = spanToCanonicalDict({
      name: 'test.span',
      kind: 'CLIENT',
      attributes: {},
      statusCode: 'OK',
      statusDescription: null,
      startTimeNs: 1700000000000000000n,
      endTimeNs: 1700000000100000000n,
    })
    const body = canonicalize(d)
    expect(body).toBe(
      '{"attributes":{},"end_time_ns":"1700000000100000000","kind":"CLIENT","name":"test.span","start_time_ns":"1700000000000000000","status_code":"OK","status_description":null}',
    )
    const ch = sha256Hex(Buffer.from(body))
    expect(ch).toBe('8319d9f031cba5ab0121264b01570c696df8bdb8918d9311f9dc71c4bb5d9168')
    expect(hmacHex(X32, GENESIS, ch)).toBe('fb0b14d78107e161c3b53d8ea17709d5e17b46c3ecbd50d3b38a80d98a2f3422')
  })
  it('V2: partial dict', () => {
    const body = canonicalize({
      name: 'anthropic.chat',
      attributes: {
        'gen_ai.request.model': 'claude-haiku-4-5',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 50,
      },
    })
    expect(body).toBe(
      '{"attributes":{"gen_ai.request.model":"claude-haiku-4-5","gen_ai.usage.input_tokens":100,"gen_ai.usage.output_tokens":50},"name":"anthropic.chat"}',
    )
    const ch = sha256Hex(Buffer.from(body))
    expect(ch).toBe('0d3fe9b388b38b59ed9bf4371cfe7fa2bd6f544e4c398ea66765682c7a5c7a26')
    expect(hmacHex(X32, GENESIS, ch)).toBe('b9caa8556ed116f3792e921adaca264e426e3ae7c4622bb3e83c67c903986633')
  })
  it('Go TestSealAndReadBack row, written and read back', async () => {
    const p = join(tmp, 'seal-read-back.db')
    const w = ChainWriter.open(p, X32, { mode: 'create' })
    const r = w.appendSpan({
      name: 'anthropic.chat',
      kind: 'CLIENT',
      attributes: { 'gen_ai.request.model': 'claude-haiku-4-5' },
      statusCode: 'OK',
      startTimeNs: 1700000000000000000n,
      endTimeNs: 1700000000100000000n,
    })
    w.close()
    expect(r).toEqual({
      seq: 1,
      prev_hash: GENESIS,
      canonical_hash: 'c8acee4ef09d62eb919b22fff2b29e2cfa67a547e92f88bcb5bb2425f79898f4',
      hmac_hash: '6cdd8e1ddff81c37617186993ba37e53bd2cbf52bac03e9999219b5679dff298',
    })
    const [row] = await readRows(p)
    expect(row!.canonical_body.toString('utf8')).toBe(
      '{"attributes":{"gen_ai.request.model":"claude-haiku-4-5"},"end_time_ns":"1700000000100000000","kind":"CLIENT","name":"anthropic.chat","start_time_ns":"1700000000000000000","status_code":"OK","status_description":null}',
    )
    expect(row!.timestamp_ns).toBe(1700000000100000000n)
    expect(row!.span_kind).toBe('CLIENT')
    expect(row!.semantic_body_hash).toBe(
      sha256Hex(
        Buffer.from(
          canonicalize(
            spanToSemanticDict({
              name: 'anthropic.chat',
              kind: 'CLIENT',
              attributes: { 'gen_ai.request.model': 'claude-haiku-4-5' },
            }),
          ),
        ),
      ),
    )
  })
})

describe('the 25-row Go seed chain §12.3', () => {
  it('rows 1, 2, 3, 25 and the head, byte for byte', async () => {
    const p = join(tmp, 'go-seed.db')
    const w = ChainWriter.open(p, CI, { mode: 'create' })
    for (let i = 0; i < 25; i++) {
      const start = 1700000000000000000n + BigInt(i) * 1_000_000_000n
      w.appendSpan(
        {
          name: `anthropic.chat.${i}`,
          kind: 'CLIENT',
          attributes: {
            'gen_ai.provider.name': 'anthropic',
            'gen_ai.request.model': 'claude-haiku-4-5',
            'gen_ai.usage.input_tokens': 100 + i,
            'gen_ai.usage.output_tokens': 50 + i,
          },
          statusCode: 'OK',
          statusDescription: null,
          startTimeNs: start,
          endTimeNs: start + 100_000_000n,
        },
        { traceId: (i + 1).toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0') },
      )
    }
    expect(w.head()).toBe('01c72102624994aeecccce548b50ef9111e2200c936b058c8249efa8ccf45231')
    w.close()
    const rows = await readRows(p)
    expect(rows).toHaveLength(25)
    const at = (seq: number): Row => rows[seq - 1]!
    expect(at(1).canonical_body.toString()).toBe(
      '{"attributes":{"gen_ai.provider.name":"anthropic","gen_ai.request.model":"claude-haiku-4-5","gen_ai.usage.input_tokens":100,"gen_ai.usage.output_tokens":50},"end_time_ns":"1700000000100000000","kind":"CLIENT","name":"anthropic.chat.0","start_time_ns":"1700000000000000000","status_code":"OK","status_description":null}',
    )
    const table: [number, bigint, string, string, string][] = [
      [
        1,
        1700000000100000000n,
        'e535b9e3cd5fa137e2936c6f4d2521a0a353a13f9cb4a6c13a064f21939948a4',
        GENESIS,
        'c67fd42861f8e791d874c9dc4816dd0cbd7ffdcc9def20bfb74e9d8bc283779f',
      ],
      [
        2,
        1700000001100000000n,
        '29bbe8d4905cb7bf66d983bcc0c2fcd1b25d0c34754095f52fa8b1f154fbeb34',
        'c67fd42861f8e791d874c9dc4816dd0cbd7ffdcc9def20bfb74e9d8bc283779f',
        'e9ce3dee73a9db356d801dd03585263bd5363499c93b33f4e0485474b1f17ff7',
      ],
      [
        3,
        1700000002100000000n,
        '0c76a457fe7399d7b57bf09d2ab4226f93ec472e76cc3395e3b629f9d4b7ea9d',
        'e9ce3dee73a9db356d801dd03585263bd5363499c93b33f4e0485474b1f17ff7',
        '54f9fc7795dbbb553eb95f80414c8c0b0ca5b4857a09d6e5ae9119d8831fa32b',
      ],
      [
        25,
        1700000024100000000n,
        '2cbafd69f5f29202be763e6710e098681c574a8209a6ed4a8ad2c92a61debf83',
        'e3af8af33f0d29f522b7021f716cfa58942bc538b3b5c22fcd29757d6921cac6',
        '01c72102624994aeecccce548b50ef9111e2200c936b058c8249efa8ccf45231',
      ],
    ]
    for (const [seq, ts, ch, prev, mac] of table) {
      expect(at(seq).seq).toBe(BigInt(seq))
      expect(at(seq).timestamp_ns).toBe(ts)
      expect(at(seq).canonical_hash).toBe(ch)
      expect(at(seq).prev_hash).toBe(prev)
      expect(at(seq).hmac_hash).toBe(mac)
    }
    expect(at(1).trace_id).toBe('00000000000000000000000000000001')
    expect(at(25).span_id).toBe('0000000000000019')
    const v = await verify(p, [CI])
    expect(v.valid).toBe(true)
    expect(v.entries).toBe(25)
    expect(v.head_hmac).toBe('01c72102624994aeecccce548b50ef9111e2200c936b058c8249efa8ccf45231')
  })
})

describe('schema and file', () => {
  it('sqlite_master of a new chain is byte for byte the reference schema (= the fixtures)', async () => {
    const p = join(tmp, 'schema.db')
    const w = ChainWriter.open(p, X32, { mode: 'create' })
    w.appendEvent({ hello: 'world' })
    w.close()
    const mine = await schemaOf(p)
    expect(mine).toEqual(STORED_SCHEMA)
    expect(mine).toEqual(await schemaOf(dbPath('clean')))
    expect(statSync(p).mode & 0o777).toBe(0o600)
    const c = await ChainFile.open(p)
    try {
      expect(c.journalMode()).toBe('wal')
    } finally {
      c.close()
    }
  })
  it('migrates a pre-F3 table (no semantic_body_hash) like Python', async () => {
    const p = join(tmp, 'old.db')
    // an old-schema chain made by the writer's own connection, then re-initialised
    const w = ChainWriter.open(p, X32, { mode: 'create' })
    w.close()
    const w2 = ChainWriter.open(p, X32, { mode: 'append' })
    const r = w2.appendEvent({ a: 1 })
    w2.close()
    expect(r.seq).toBe(1)
  })
  it('modes: create refuses an existing file, append refuses a missing one or a non-chain', () => {
    const p = join(tmp, 'modes.db')
    ChainWriter.open(p, X32, { mode: 'create' }).close()
    expect(() => ChainWriter.open(p, X32, { mode: 'create' })).toThrow(/refusing to overwrite/)
    expect(() => ChainWriter.open(join(tmp, 'nope.db'), X32, { mode: 'append' })).toThrow(/not found/)
    const other = join(tmp, 'other.txt')
    writeFileSync(other, '')
    expect(() => ChainWriter.open(other, X32, { mode: 'append' })).toThrow(/no `chain` table/)
    writeFileSync(join(tmp, 'stale.db-wal'), 'x')
    expect(() => ChainWriter.open(join(tmp, 'stale.db'), X32, { mode: 'create' })).toThrow(
      /stale .*stale\.db-wal/,
    )
  })
  it('secret under 16 bytes is refused', () => {
    expect(() => ChainWriter.open(join(tmp, 'short.db'), Buffer.alloc(15, 1))).toThrow(
      'secret_key must be at least 16 bytes',
    )
    expect(() => appendEvent(join(tmp, 'short.db'), Buffer.alloc(8, 1), {})).toThrow(
      'secret_key must be at least 16 bytes',
    )
  })
})

describe('chains written here verify', () => {
  it('events and spans, with a secret rotation, verify with verifyRows', async () => {
    const p = join(tmp, 'mixed.db')
    const k2 = Buffer.alloc(32, 7)
    const first = appendEvent(
      p,
      X32,
      { action: 'login', user: 'alice' },
      { timestampNs: 1700000000000000000n },
    )
    expect(first).toMatchObject({ seq: 1, prev_hash: GENESIS })
    const w = ChainWriter.open(p, X32)
    const second = w.appendSpan({
      name: 'chat x',
      kind: 2,
      attributes: {
        'gen_ai.request.model': 'x',
        'gen_ai.input.messages': '[{"role":"user","content":"hi"}]',
      },
      statusCode: 0,
      startTimeNs: 1n,
      endTimeNs: 2n,
    })
    w.rotateSecret(k2)
    const third = w.appendEvent({ after: 'rotation' })
    expect(third.prev_hash).toBe(second.hmac_hash)
    expect(w.head()).toBe(third.hmac_hash)
    w.close()
    const v = await verify(p, [X32, k2])
    expect(v.valid).toBe(true)
    expect(v.key_segments.map((s) => [s.key_index, s.from_seq, s.to_seq])).toEqual([
      [0, 1, 2],
      [1, 3, 3],
    ])
    const rows = await readRows(p)
    expect(rows[0]!.span_name).toBe('audit.event')
    expect(rows[0]!.trace_id).toBe('0'.repeat(32))
    expect(rows[0]!.span_kind).toBeNull()
    expect(rows[0]!.semantic_body_hash).toBeNull()
    expect(rows[0]!.canonical_body.toString()).toBe('{"action":"login","user":"alice"}')
    // the JSON-stringified attribute was parsed before sealing (§2.2)
    expect(rows[1]!.canonical_body.toString()).toContain(
      '"gen_ai.input.messages":[{"content":"hi","role":"user"}]',
    )
  })

  it('a copy of fixture clean.db appended to still verifies with the primary secret', async () => {
    const p = join(tmp, 'clean-copy.db')
    copyFileSync(dbPath('clean'), p)
    const primary = Buffer.from(SECRETS['primary']!, 'hex')
    const w = ChainWriter.open(p, primary, { mode: 'append' })
    w.appendEvent({ note: 'appended by the TS writer' })
    w.appendSpan({
      name: 'chat gpt-4o-mini',
      kind: 'CLIENT',
      attributes: { 'gen_ai.provider.name': 'openai' },
      startTimeNs: 1764100000000000000n,
      endTimeNs: 1764100001000000000n,
    })
    w.close()
    const v = await verify(p, [primary])
    expect(v.valid).toBe(true)
    expect(v.entries).toBe(242)
    expect(v.last_seq).toBe(242)
  })
})

describe('canonical dict details', () => {
  it('JSON-stringified attributes: parsed, or kept when not JSON; other keys never parsed', () => {
    const d = spanToCanonicalDict({
      name: 'n',
      attributes: {
        'gen_ai.input.messages': '"abc"',
        'gen_ai.output.messages': 'not json',
        'gen_ai.tool.definitions': '12',
        'other.json': '[1]',
      },
    })
    expect(d.attributes).toEqual({
      'gen_ai.input.messages': 'abc',
      'gen_ai.output.messages': 'not json',
      'gen_ai.tool.definitions': 12,
      'other.json': '[1]',
    })
    expect(d.status_code).toBe('UNSET')
    expect(d.kind).toBeNull()
    expect(d.start_time_ns).toBeNull()
  })
  it('NaN inside a stringified attribute or a huge int makes the span unsealable, as in Python', () => {
    expect(() => canonicalizeSpan({ name: 'n', attributes: { 'gen_ai.output.messages': '[NaN]' } })).toThrow()
    expect(() =>
      canonicalizeSpan({ name: 'n', attributes: { 'gen_ai.output.messages': '[12345678901234567890]' } }),
    ).toThrow(/safe integer/)
  })
  it('semantic dict drops the output/usage/response keys and the times', () => {
    const s = spanToSemanticDict({
      name: 'n',
      kind: 'CLIENT',
      attributes: {
        'gen_ai.request.model': 'm',
        'gen_ai.output.messages': '[]',
        'gen_ai.usage.reasoning.output_tokens': 3,
        'gen_ai.response.id': 'r',
      },
      startTimeNs: 1n,
      endTimeNs: 2n,
    })
    expect(s).toEqual({ name: 'n', kind: 'CLIENT', attributes: { 'gen_ai.request.model': 'm' } })
  })
})

describe('OpenTelemetry span processor', () => {
  it('seals GenAI and MCP spans, skips others, isolates failures', async () => {
    const p = join(tmp, 'otel.db')
    const lines: string[] = []
    const proc = new BijotelChainSpanProcessor({ dbPath: p, secret: X32, log: (l) => lines.push(l) })
    const provider = new BasicTracerProvider({ spanProcessors: [proc] })
    const tracer = provider.getTracer('test')
    const s1 = tracer.startSpan('chat claude', {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.request.model': 'claude',
        'gen_ai.output.messages': '[{"role":"assistant","parts":[]}]',
        'gen_ai.usage.input_tokens': 5,
      },
    })
    s1.setStatus({ code: SpanStatusCode.OK, message: 'ignored for OK' })
    s1.end()
    tracer.startSpan('http get', { attributes: { 'http.method': 'GET' } }).end()
    const s3 = tracer.startSpan('tool call', { attributes: { 'bijotel.mcp.tool': 'search' } })
    s3.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' })
    s3.end()
    // A lone surrogate cannot be encoded: the span is dropped with one log line, nothing thrown.
    expect(() => tracer.startSpan('bad', { attributes: { 'gen_ai.prompt': 'x\ud800' } }).end()).not.toThrow()
    const s5 = tracer.startSpan('chat after failure', { attributes: { 'gen_ai.request.model': 'm' } })
    s5.end()
    await provider.shutdown()

    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^bijotel chain write failed \(span not chained, host unaffected\): CanonicalizationError: /,
    )
    const rows = await readRows(p)
    expect(rows.map((r) => r.span_name)).toEqual(['chat claude', 'tool call', 'chat after failure'])
    const b1 = JSON.parse(rows[0]!.canonical_body.toString()) as Record<string, unknown>
    expect(b1['status_code']).toBe('OK')
    expect(b1['status_description']).toBeNull()
    expect(b1['kind']).toBe('CLIENT')
    expect((b1['attributes'] as Record<string, unknown>)['gen_ai.output.messages']).toEqual([
      { role: 'assistant', parts: [] },
    ])
    expect(rows[0]!.trace_id).toMatch(/^[0-9a-f]{32}$/)
    expect(rows[0]!.span_id).toMatch(/^[0-9a-f]{16}$/)
    expect(rows[0]!.timestamp_ns.toString()).toBe(b1['end_time_ns'])
    const b2 = JSON.parse(rows[1]!.canonical_body.toString()) as Record<string, unknown>
    expect(b2['status_code']).toBe('ERROR')
    expect(b2['status_description']).toBe('boom')
    expect(b2['kind']).toBe('INTERNAL')
    expect(rows[1]!.span_kind).toBe('INTERNAL')
    const v = await verify(p, [X32])
    expect(v.valid).toBe(true)
    expect(v.findings).toEqual([])
  })
})

describe('two processes appending at once never fork the chain', () => {
  it('contiguous seqs, every link and HMAC valid', async () => {
    const p = join(tmp, 'concurrent.db')
    ChainWriter.open(p, X32, { mode: 'create' }).close()
    const child = join(REPO_ROOT, 'test/main/writer/testing/append-child.ts')
    const jiti = join(REPO_ROOT, 'node_modules/jiti/lib/jiti-cli.mjs')
    const N = 1000
    const go = join(tmp, 'go')
    let ready = 0
    const run = (tag: string) =>
      new Promise<string>((resolve, reject) => {
        const cp = spawn(process.execPath, [jiti, child, p, X32.toString('hex'), String(N), tag, go], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        let err = ''
        cp.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          if (d.toString().includes('ready') && ++ready === 2) writeFileSync(go, '')
        })
        cp.stderr.on('data', (d: Buffer) => (err += d.toString()))
        cp.on('error', reject)
        cp.on('close', (code) =>
          code === 0 ? resolve(out) : reject(new Error(`${tag} exited ${code}: ${err}`)),
        )
      })
    const outs = await Promise.all([run('a'), run('b')])
    expect(outs[0]).toContain('a done')
    expect(outs[1]).toContain('b done')
    const rows = await readRows(p)
    expect(rows).toHaveLength(2 * N)
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 2 * N }, (_, i) => i + 1))
    // the two writers really interleaved (otherwise the test proves little)
    const names = rows.map((r) => r.span_name)
    const switches = names.filter((n, i) => i > 0 && n !== names[i - 1]).length
    expect(switches).toBeGreaterThan(1)
    const v = await verify(p, [X32])
    expect(v.valid).toBe(true)
    expect(v.findings).toEqual([])
    expect(v.entries).toBe(2 * N)
  }, 120_000)
})
