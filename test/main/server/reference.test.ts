// The reference-compatible REST routes (§5.4, §6.5, §7) over real HTTP, against the shared fixtures:
// shapes, status codes, and every fixture's integrity report and replay case.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { EntryDetail } from '../../../src/shared/chain-types'
import { dbPath, expected, FIXTURES, fixtureNames, SECRETS } from '../testing/fixtures'
import { TOOL_VERSION } from '../../../src/main/base/version'
import { callApi, http, type Reply } from './testkit'
import { serveForSuite } from '../testing/served'

const served = serveForSuite({ prefix: 'bijotel-ref-', open: dbPath('clean') })

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/

function get(path: string): Promise<Reply> {
  return http(`${served.base}${path}`)
}

function post(path: string, body: unknown): Promise<Reply> {
  return http(`${served.base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? '' : JSON.stringify(body),
  })
}

async function open(name: string): Promise<void> {
  const r = await callApi(served.base, 'openChain', { path: dbPath(name) })
  expect(r.status, r.text).toBe(200)
}

async function setKeys(names: string[]): Promise<void> {
  const secrets = names.map((n) => ({ encoding: n === 'raw_text' ? 'text' : 'hex', value: SECRETS[n]! }))
  const r = await callApi(served.base, 'setSecrets', { secrets }, { 'X-Bijotel-App-Token': served.token })
  expect(r.status, r.text).toBe(200)
}

describe('GET /health, GET /version', () => {
  it('answer with the reference shapes', async () => {
    const h = await get('/health')
    expect(h.status).toBe(200)
    expect(h.json).toEqual({ status: 'ok', version: TOOL_VERSION, db: dbPath('clean'), db_exists: true })
    const v = await get('/version')
    expect(v.status).toBe(200)
    expect(v.json).toEqual({ version: TOOL_VERSION, package: 'bijotel-auditor' })
    expect((await get('/api/health')).status).toBe(200)
    expect((await get('/api/version')).json).toEqual(v.json)
    expect((await post('/health', {})).status).toBe(405)
  })
})

describe('GET /chain', () => {
  beforeAll(async () => {
    await open('clean')
    await setKeys(['primary'])
  })

  it('lists newest first with the reference fields, 50 by default', async () => {
    const r = await get('/chain')
    expect(r.status).toBe(200)
    const body = r.json as { total: number; entries: Record<string, unknown>[]; pagination: unknown }
    expect(body.total).toBe(240)
    expect(body.entries).toHaveLength(50)
    expect(body.entries.map((e) => e['seq'])).toEqual(Array.from({ length: 50 }, (_, i) => 240 - i))
    expect(body.pagination).toEqual({ limit: 50, offset: 0, has_more: true })
    const e = body.entries[0]!
    expect(Object.keys(e)).toEqual([
      'seq',
      'timestamp',
      'trace_id',
      'span_id',
      'span_name',
      'span_kind',
      'canonical_hash',
      'hmac_valid',
    ])
    expect(e['timestamp']).toMatch(ISO_Z)
    expect(e['trace_id']).toMatch(/^[0-9a-f]{32}$/)
    expect(e['span_id']).toMatch(/^[0-9a-f]{16}$/)
    expect(body.entries.every((x) => x['hmac_valid'] === true)).toBe(true)
  })

  it('timestamps match the entry times (microseconds, Python rounding)', async () => {
    const r = (await get('/chain?limit=3&offset=237')).json as {
      entries: { seq: number; timestamp: string }[]
    }
    for (const e of r.entries) {
      const d = (await callApi(served.base, 'getEntry', { seq: e.seq })).json as EntryDetail
      const ns = BigInt(d.timestamp_ns)
      const ms = Number(ns / 1_000_000n)
      // Same second as the exact time; microseconds within 1 of it (float rounding like Python).
      expect(e.timestamp.slice(0, 19)).toBe(new Date(ms).toISOString().slice(0, 19))
      const us = e.timestamp.length > 20 ? Number(e.timestamp.slice(20, 26)) : 0
      expect(Math.abs(us - Number((ns / 1000n) % 1_000_000n))).toBeLessThanOrEqual(1)
    }
  })

  it('paginates with limit/offset and reports has_more', async () => {
    const r = (await get('/chain?limit=500&offset=200')).json as {
      entries: { seq: number }[]
      pagination: unknown
      total: number
    }
    expect(r.total).toBe(240)
    expect(r.entries.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 40 - i))
    expect(r.pagination).toEqual({ limit: 500, offset: 200, has_more: false })
    const past = (await get('/chain?offset=1000')).json as { entries: unknown[]; total: number }
    expect(past.entries).toEqual([])
    expect(past.total).toBe(240)
  })

  it('filters by since (inclusive) and until (exclusive), total under the filter', async () => {
    const t100 = ((await callApi(served.base, 'getEntry', { seq: 100 })).json as EntryDetail).time
    const t110 = ((await callApi(served.base, 'getEntry', { seq: 110 })).json as EntryDetail).time
    const r = await get(
      `/chain?since=${encodeURIComponent(t100)}&until=${encodeURIComponent(t110)}&limit=100`,
    )
    expect(r.status).toBe(200)
    const body = r.json as { total: number; entries: { seq: number }[] }
    expect(body.total).toBe(10)
    expect(body.entries.map((e) => e.seq)).toEqual([109, 108, 107, 106, 105, 104, 103, 102, 101, 100])
  })

  it('refuses bad parameters: 422 for limit/offset, 400 for dates', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'offset=-1', 'offset=1.5']) {
      const r = await get(`/chain?${q}`)
      expect(r.status, q).toBe(422)
      expect(r.json).toMatchObject({ code: 'bad_request' })
    }
    const bad = await get('/chain?since=yesterday')
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({ error: "Invalid 'since' ISO-8601: yesterday", code: 'bad_request' })
    expect((await get('/chain?until=2023-02-30')).status).toBe(400)
  })

  it('hmac_valid is null without a server secret (fixes §11.12), false for a tampered row', async () => {
    await setKeys([])
    const none = (await get('/chain?limit=5')).json as { entries: { hmac_valid: unknown }[] }
    expect(none.entries.map((e) => e.hmac_valid)).toEqual([null, null, null, null, null])
    await open('body-edit')
    await setKeys(['primary'])
    const r = (await get('/chain?limit=3&offset=' + (240 - 58))).json as {
      entries: { seq: number; hmac_valid: boolean }[]
    }
    expect(r.entries.map((e) => [e.seq, e.hmac_valid])).toEqual([
      [58, true],
      [57, false],
      [56, true],
    ])
    await setKeys(['attacker'])
    const wrong = (await get('/chain?limit=2')).json as { entries: { hmac_valid: unknown }[] }
    expect(wrong.entries.map((e) => e.hmac_valid)).toEqual([false, false])
    await open('clean')
    await setKeys(['primary'])
  })
})

describe('GET /chain/{seq}', () => {
  it('returns the row with its parsed body', async () => {
    const r = await get('/chain/1')
    expect(r.status).toBe(200)
    const e = r.json as Record<string, unknown>
    expect(Object.keys(e)).toEqual([
      'seq',
      'timestamp',
      'trace_id',
      'span_id',
      'span_name',
      'span_kind',
      'canonical_body',
      'canonical_hash',
      'prev_hash',
      'hmac_hash',
      'hmac_valid',
      'cas_ref',
    ])
    expect(e['seq']).toBe(1)
    expect(e['prev_hash']).toBe('0'.repeat(64))
    expect(e['hmac_valid']).toBe(true)
    expect(e['timestamp']).toMatch(ISO_Z)
    expect(typeof e['canonical_body']).toBe('object')
    expect((e['canonical_body'] as { name: string }).name).toBe(e['span_name'])
    const detail = (await callApi(served.base, 'getEntry', { seq: 1 })).json as EntryDetail
    expect(e['cas_ref']).toBe(detail.semantic_body_hash)
    expect(e['canonical_hash']).toBe(detail.canonical_hash)
  })

  it('400 for seq < 1, 422 for a non-integer, 404 for an unknown seq', async () => {
    expect(await get('/chain/0').then((r) => [r.status, r.json])).toEqual([
      400,
      { error: 'seq must be >= 1', code: 'bad_request' },
    ])
    expect((await get('/chain/-3')).status).toBe(400)
    expect((await get('/chain/abc')).status).toBe(422)
    expect(await get('/chain/99999').then((r) => [r.status, r.json])).toEqual([
      404,
      { error: 'chain entry seq=99999 not found', code: 'not_found' },
    ])
  })

  it('a body that is not UTF-8 JSON is reported, not a 500', async () => {
    await open('odd-non-json-body')
    await setKeys(['primary']) // an open clears the keys (they belong to a chain)
    const r = await get('/chain/12')
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({
      seq: 12,
      canonical_body: { _error: 'body not valid UTF-8 JSON' },
      hmac_valid: false,
    })
    await open('clean')
    await setKeys(['primary'])
  })
})

describe('POST /chain/verify', () => {
  it('always verifies fully with the server secret; range fields are honoured', async () => {
    await setKeys(['primary'])
    const clean = expected('clean').verify
    const r = await post('/chain/verify', undefined)
    expect(r.status, r.text).toBe(200)
    expect(r.json).toMatchObject({
      valid: true,
      entries_verified: 240,
      first_seq: 1,
      last_seq: 240,
      error: null,
      error_seq: null,
    })
    // The verdict also carries what the files remember (nothing here): the rest is the fixture's.
    const {
      recovered,
      recovery: _searched,
      ...verdict
    } = (r.json as { verdict: Record<string, unknown> }).verdict
    expect(verdict).toEqual(clean)
    expect(recovered).toEqual([])
    const smoke = await post('/chain/verify', { full: false })
    expect(smoke.json).toMatchObject({ valid: true, entries_verified: 240 })
    const ranged = await post('/chain/verify', { full: true, seq_start: 10, seq_end: 20 })
    expect(ranged.json).toMatchObject({ valid: true, entries_verified: 11, first_seq: 10, last_seq: 20 })
    const last = await post('/chain/verify', { last_n: 5 })
    expect(last.json).toMatchObject({ valid: true, entries_verified: 5, first_seq: 236, last_seq: 240 })
  })

  it('takes ns bounds beyond 2^53 exactly (as JSON integers or strings)', async () => {
    const t = ((await callApi(served.base, 'getEntry', { seq: 200 })).json as EntryDetail).timestamp_ns
    const asNumber = await http(`${served.base}/chain/verify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"since_ns": ${t}}`,
    })
    expect(asNumber.json).toMatchObject({ valid: true, first_seq: 200, entries_verified: 41 })
    const asString = await post('/chain/verify', { since_ns: t, until_ns: t })
    expect(asString.json).toMatchObject({ valid: true, first_seq: 200, last_seq: 200, entries_verified: 1 })
  })

  it('reports the first failure with the reference reason', async () => {
    await open('row-deleted')
    await setKeys(['primary']) // an open clears the keys (they belong to a chain)
    const r = await post('/chain/verify', {})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({
      valid: false,
      error_seq: 41,
      error: 'prev_hash mismatch (chain broken)',
      entries_verified: 239,
    })
    const {
      recovered,
      recovery: _searched,
      ...verdict
    } = (r.json as { verdict: Record<string, unknown> }).verdict
    expect(verdict).toEqual(expected('row-deleted').verify)
    expect(recovered).toEqual([])
    await open('clean')
    await setKeys(['primary'])
  })

  it('400 without a server secret, 422 for malformed fields', async () => {
    await setKeys([])
    const r = await post('/chain/verify', {})
    expect(r.status).toBe(400)
    expect(r.json).toMatchObject({
      code: 'bad_request',
      error: expect.stringContaining('HMAC secret required'),
    })
    await setKeys(['primary'])
    expect((await post('/chain/verify', { full: 'yes' })).status).toBe(422)
    expect((await post('/chain/verify', { seq_start: 'a' })).status).toBe(422)
    expect((await post('/chain/verify', { since_ns: 1.5 })).status).toBe(422)
    expect((await post('/chain/verify', [1])).status).toBe(422)
    expect((await get('/chain/verify')).status).toBe(405)
  })
})

describe('GET /integrity and POST /replay/verify on every fixture', () => {
  beforeAll(async () => {
    // No key: the reference's rotation detector is a stub, and so is ours without keys.
    await setKeys([])
  })

  for (const name of fixtureNames()) {
    it(`${name}: integrity at window 100 and 500, and every replay case`, async () => {
      const exp = expected(name)
      await open(name)
      const w100 = await get('/integrity?window=100')
      expect(w100.status, w100.text).toBe(200)
      expect(w100.headers.get('content-type')).toMatch(/^application\/json/)
      expect(w100.json).toEqual(exp.integrity_window_100)
      const w500 = await get('/integrity?window=500')
      expect(w500.status, w500.text).toBe(200)
      expect(w500.json).toEqual(exp.integrity_window_500)
      for (const c of exp.replay ?? []) {
        const replayed = readFileSync(join(FIXTURES, c.file), 'utf8')
        const r = await post('/replay/verify', { seq: c.seq, replayed_output: replayed })
        expect(r.status, r.text).toBe(200)
        expect(Object.keys(r.json as object)).toEqual([
          'match',
          'original_hash',
          'replay_hash',
          'deterministic',
          'model_version',
          'reason',
        ])
        expect(r.json).toEqual(c.expected)
      }
    })
  }

  it('integrity with server keys reports rotation boundaries (Python never fills that list)', async () => {
    await open('rotation')
    await setKeys(['primary', 'rotated'])
    const r = (await get('/integrity?window=500')).json as {
      rotation_boundaries: { seq: number }[]
      clean: boolean
      anomaly_count: number
    }
    expect(r.rotation_boundaries).toEqual([
      { seq: 161, detail: 'sealing key changed from key #1 to key #2 at seq=161' },
    ])
    expect(r).toMatchObject({ clean: false, anomaly_count: 1 })
    await setKeys([])
  })

  it('integrity: default window 100; 422 outside 2..10000', async () => {
    await open('clean')
    expect((await get('/integrity')).json).toEqual(expected('clean').integrity_window_100)
    expect((await get('/integrity?window=2')).status).toBe(200)
    expect((await get('/integrity?window=10000')).status).toBe(200)
    for (const w of ['1', '10001', '0', '-5', 'abc', '2.5']) {
      const r = await get(`/integrity?window=${w}`)
      expect(r.status, w).toBe(422)
      expect(r.json).toMatchObject({ code: 'bad_request' })
    }
  })

  it('replay: 404 for an unknown seq, 422 for malformed bodies', async () => {
    const r = await post('/replay/verify', { seq: 99999, replayed_output: 'x' })
    expect(r.status).toBe(404)
    expect(r.json).toMatchObject({ error: 'seq 99999 not found in chain', code: 'not_found' })
    for (const body of [
      {},
      { seq: '1.5', replayed_output: 'x' },
      { seq: null, replayed_output: 'x' },
      { seq: 1 },
      { seq: 1, replayed_output: 5 },
      [1],
      'text',
    ]) {
      const m = await post('/replay/verify', body)
      expect(m.status, JSON.stringify(body)).toBe(422)
    }
  })
})

describe('without an open chain the reference routes are 503', () => {
  it('integrity, replay, chain, chain/{seq}, chain/verify', async () => {
    await setKeys(['primary'])
    expect((await callApi(served.base, 'closeChain')).status).toBe(200)
    const replies = [
      await get('/integrity'),
      await post('/replay/verify', { seq: 1, replayed_output: 'x' }),
      await get('/chain'),
      await get('/chain/1'),
      await post('/chain/verify', {}),
    ]
    for (const r of replies) {
      expect(r.status, r.text).toBe(503)
      expect(r.json).toMatchObject({ code: 'no_chain', error: expect.stringContaining('chain DB not found') })
    }
    // The contract says 409 for the same condition.
    expect((await callApi(served.base, 'getEntry', { seq: 1 })).status).toBe(409)
    const h = (await get('/health')).json as { db_exists: boolean }
    expect(h.db_exists).toBe(true) // the --db path still exists on disk
    await open('clean')
  })
})
