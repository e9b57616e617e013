// The auditor's working tools over real HTTP (issue 26), against a real AuditSession: the keyless
// verify started on open, search as a cancellable job filtering table and timeline, typed time
// ranges and presets, the rows in view exported as JSONL, CSV and a reference export file, and the
// payload-drift series. SQLite (better-sqlite3 on a private copy) is the oracle for what a search
// finds, what a range holds and what an export carries.
import Database from 'better-sqlite3'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiName } from '../../../src/shared/contract'
import type { DriftSeries } from '../../../src/shared/drift-types'
import type { JobStatus } from '../../../src/shared/job-types'
import type { SearchResult, TimeRange, ViewExport } from '../../../src/shared/tools-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { parseSecrets } from '../../../src/main/chain/keys'
import { copyFixture, spanRow, writeChain, type RowSpec } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, FIXTURES, SECRETS, secretInputs } from '../testing/fixtures'
import { writeSyntheticChain, type Reply } from './testkit'
import { serveForSuite, untilJobDone } from '../testing/served'

const served = serveForSuite({
  prefix: 'bijotel-tools-',
  setup: ensureBuilt,
  openRoots: (dir) => [FIXTURES, dir],
})

function call(name: ApiName, req?: unknown): Promise<Reply> {
  return served.call(name, req)
}

const untilDone = <R>(id: string): Promise<JobStatus<R>> => untilJobDone<R>(call, id, 3000)

async function open(path: string): Promise<void> {
  const r = await call('openChain', { path })
  expect(r.status, r.text).toBe(200)
}

async function keylessDone(): Promise<VerifyVerdict> {
  const k = (await call('keylessVerdict')).json as JobStatus<VerifyVerdict>
  expect(k.kind).toBe('keyless-verify')
  const done = await untilDone<VerifyVerdict>(k.id)
  expect(done.state, done.error ?? '').toBe('done')
  return done.result!
}

/** SQLite's answer on a private copy of the chain. */
function sql<T>(path: string, query: string, ...params: unknown[]): T[] {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare(query).all(...params) as T[]
  } finally {
    db.close()
  }
}

describe('keyless verify on open', () => {
  it('runs when a chain opens, with no key: a body edit is found, hmac_checked false', async () => {
    expect(served.session.keys).toEqual([])
    await open(dbPath('body-edit'))
    const v = await keylessDone()
    expect(v).toMatchObject({ valid: false, hmac_checked: false, entries: 240, first_bad_seq: 57 })
    expect(v.findings).toEqual([{ kind: 'body_hash_mismatch', from_seq: 57, to_seq: 57, count: 1 }])
    // Its findings flag rows before any key is typed; the keyed verdict is still none.
    const flagged = (await call('listEntries', { offset: 0, limit: 10, filter: { flagged_only: true } }))
      .json as { total: number; rows: { seq: number }[] }
    expect(flagged.rows.map((r) => r.seq)).toEqual([57])
    expect((await call('lastVerdict')).json).toBeNull()

    await open(dbPath('clean'))
    expect(await keylessDone()).toMatchObject({ valid: true, hmac_checked: false, findings: [] })
    expect((await call('closeChain')).status).toBe(200)
    expect((await call('keylessVerdict')).json).toBeNull()
  })

  it('runs for a chain opened before the handler table exists (serve --db, the desktop command line)', async () => {
    const local = new AuditSession({ initialPath: dbPath('body-edit') })
    try {
      await local.open(dbPath('body-edit'))
      const table = createHandlers(local)
      const ctx = { transport: 'ipc', trusted: true } as const
      const started = await table.keylessVerdict(undefined, ctx)
      expect(started, 'no keyless check for the chain held at start').not.toBeNull()
      let s = started!
      for (let i = 0; i < 3000 && s.state === 'running'; i++) {
        await new Promise((res) => setTimeout(res, 10))
        s = (await table.keylessVerdict(undefined, ctx))!
      }
      expect(s.state, s.error ?? '').toBe('done')
      // The CLI's `verify --keyless --json` is the reference for what the check finds.
      const cli = bijotel(['verify', '--db', dbPath('body-edit'), '--keyless', '--json'])
      const expected = JSON.parse(cli.stdout) as VerifyVerdict
      expect(s.result).toMatchObject({ valid: false, hmac_checked: false, entries: expected.entries })
      expect(s.result!.findings).toEqual(expected.findings)
    } finally {
      local.dispose()
    }
  })
})

describe('search', () => {
  it('finds body text, trace ids and models as SQLite does; the result filters table and timeline', async () => {
    await open(dbPath('clean'))
    const copy = copyFixture('clean', served.dir, 'clean-search.db')
    for (const [query, fields, oracle] of [
      [
        '[CASE 19',
        ['body'],
        `SELECT seq FROM chain WHERE instr(lower(CAST(canonical_body AS TEXT)), '[case 19') > 0`,
      ],
      [
        '"role":"user"',
        ['body'],
        `SELECT seq FROM chain WHERE instr(CAST(canonical_body AS TEXT), '"role":"user"') > 0`,
      ],
      ['雨', ['body'], `SELECT seq FROM chain WHERE instr(CAST(canonical_body AS TEXT), '雨') > 0`],
      ['AB', ['trace_id'], `SELECT seq FROM chain WHERE instr(lower(trace_id), 'ab') > 0`],
      [
        'grok',
        ['model'],
        `SELECT seq FROM chain WHERE json_extract(canonical_body, '$.attributes."gen_ai.request.model"') LIKE '%grok%'`,
      ],
    ] as const) {
      const started = await call('startSearch', { query, fields })
      expect(started.status, started.text).toBe(200)
      const done = await untilDone<SearchResult>((started.json as JobStatus).id)
      expect(done.state, done.error ?? '').toBe('done')
      const r = done.result!
      const want = sql<{ seq: number }>(copy, `${oracle} ORDER BY seq`).map((x) => x.seq)
      expect(want.length, query).toBeGreaterThan(0)
      expect(r.seqs, query).toEqual(want)
      expect(r.scanned).toBe(240)

      const page = (await call('listEntries', { offset: 0, limit: 1000, filter: { search_id: r.search_id } }))
        .json as { total: number; rows: { seq: number }[] }
      expect(page.rows.map((x) => x.seq)).toEqual(want)
      const tl = (await call('timeline', { buckets: 20, search_id: r.search_id })).json as {
        buckets: { count: number }[]
      }
      expect(tl.buckets.reduce((s, b) => s + b.count, 0)).toBe(want.length)
    }
  })

  it('a time range limits it; a bad request is a 400; an unknown search_id a 404', async () => {
    const all = (await call('overview')).json as { first_timestamp_ns: string }
    const from = (BigInt(all.first_timestamp_ns) + 3_600_000_000_000n).toString()
    const started = (await call('startSearch', { query: 'chat', fields: ['body'], from_ns: from }))
      .json as JobStatus
    const r = (await untilDone<SearchResult>(started.id)).result!
    const copy = copyFixture('clean', served.dir, 'clean-search-2.db')
    const want = sql<{ seq: number }>(
      copy,
      `SELECT seq FROM chain WHERE timestamp_ns >= ? AND instr(CAST(canonical_body AS TEXT), 'chat') > 0`,
      BigInt(from),
    ).map((x) => x.seq)
    expect(r.seqs).toEqual(want)
    expect((await call('startSearch', { query: '' })).status).toBe(400)
    expect((await call('startSearch', { query: 'x', fields: ['nope'] })).status).toBe(400)
    const unknown = await call('listEntries', { offset: 0, limit: 5, filter: { search_id: 'nope' } })
    expect(unknown.status).toBe(404)
  })

  it('streams over a large chain with progress, and is cancelled', async () => {
    const big = join(served.dir, 'big.db')
    writeSyntheticChain(big, 60_000, Buffer.from(SECRETS['primary']!, 'hex'))
    await open(big)
    // The race this test had: it waited 30 ms and took the search to be running still, but under
    // load the scan of 60,000 rows could end before the cancel was read ('done', not 'cancelled').
    // What a cancel promises: answered while the job runs, the job ends 'cancelled' with no result
    // (never 'done'); answered after it ended, it changes nothing. Asked again until a cancel lands
    // while the job runs (the first, all but always).
    for (let attempt = 0; ; attempt++) {
      const started = (await call('startSearch', { query: 'no such text anywhere' })).json as JobStatus
      const c = await call('cancelJob', { id: started.id })
      expect(c.status).toBe(200)
      const landed = (c.json as JobStatus).state === 'running'
      const end = await untilDone(started.id)
      if (landed) {
        expect(end.state).toBe('cancelled')
        expect(end.result).toBeNull()
        break
      }
      expect(end.state).toBe('done')
      expect(attempt, 'no cancel landed while the search ran').toBeLessThan(5)
    }
  })
})

describe('typed time range', () => {
  it('dates, times, zones and presets resolve to the bounds SQLite counts the same rows in', async () => {
    await open(dbPath('clean'))
    const copy = copyFixture('clean', served.dir, 'clean-range.db')
    const count = (lo: string | null, hi: string | null): number =>
      sql<{ n: number }>(
        copy,
        'SELECT COUNT(*) AS n FROM chain WHERE timestamp_ns >= ? AND timestamp_ns <= ?',
        BigInt(lo ?? '-9223372036854775808'),
        BigInt(hi ?? '9223372036854775807'),
      )[0]!.n
    const ov = (await call('overview')).json as { first_time: string; last_timestamp_ns: string }
    const day = ov.first_time.slice(0, 10)
    const dayStart = BigInt(Date.parse(`${day}T00:00:00Z`)) * 1_000_000n
    const r = (await call('resolveTimeRange', { from: day, to: day })).json as TimeRange
    expect(r.from_ns).toBe(dayStart.toString())
    expect(r.to_ns).toBe((dayStart + 86_400_000_000_000n - 1n).toString())
    expect(r.rows).toBe(count(r.from_ns, r.to_ns))
    expect(r.from_time).toBe(`${day}T00:00:00.000000000Z`)

    const local = (await call('resolveTimeRange', { from: `${day} 10:30`, utc_offset_minutes: 120 }))
      .json as TimeRange
    expect(local.from_ns).toBe((dayStart + 510n * 60_000_000_000n).toString())
    expect(local.to_ns).toBeNull()
    expect(local.rows).toBe(count(local.from_ns, null))
    const zoned = (await call('resolveTimeRange', { from: `${day}T10:30:00.5+02:00`, to: `${day}T23:59Z` }))
      .json as TimeRange
    expect(zoned.from_ns).toBe((dayStart + 510n * 60_000_000_000n + 500_000_000n).toString())
    expect(zoned.to_ns).toBe((dayStart + 86_400_000_000_000n - 1n).toString())

    const hour = (await call('resolveTimeRange', { preset: 'last_hour' })).json as TimeRange
    const last = BigInt(ov.last_timestamp_ns)
    expect([hour.from_ns, hour.to_ns]).toEqual([(last - 3_600_000_000_000n + 1n).toString(), last.toString()])
    expect(hour.rows).toBe(count(hour.from_ns, hour.to_ns))
    expect((await call('resolveTimeRange', { preset: 'whole_chain' })).json).toMatchObject({ rows: 240 })
    const page = (
      await call('listEntries', { offset: 0, limit: 1, filter: { from_ns: hour.from_ns, to_ns: hour.to_ns } })
    ).json as { total: number }
    expect(page.total).toBe(hour.rows)

    for (const bad of [
      { from: 'yesterday' },
      { from: '2025-02-30' },
      { from: `${day} 25:00` },
      { from: `${day}`, to: '2000-01-01' },
      { preset: 'last_hour', from: day },
      { preset: 'last_year' },
    ]) {
      const b = await call('resolveTimeRange', bad)
      expect(b.status, JSON.stringify(bad)).toBe(400)
      expect((b.json as { error: string }).error).not.toMatch(/\n/)
    }
  })
})

describe('export of the rows in view', () => {
  it('JSONL and CSV carry the rows of the listing with SQLite hashes and the verdict marks', async () => {
    await open(dbPath('body-edit'))
    await keylessDone()
    const copy = copyFixture('body-edit', served.dir, 'body-edit-export.db')
    const filter = { provider: 'anthropic' }
    const listing = (await call('listEntries', { offset: 0, limit: 1000, sort: 'seq_desc', filter }))
      .json as {
      total: number
      rows: { seq: number; model: string | null; time: string }[]
    }
    const hashes = new Map(
      sql<{ seq: number; c: string; p: string; h: string }>(
        copy,
        'SELECT seq, canonical_hash AS c, prev_hash AS p, hmac_hash AS h FROM chain',
      ).map((x) => [x.seq, x]),
    )

    const j = await call('exportView', { format: 'jsonl', sort: 'seq_desc', filter })
    expect(j.status, j.text.slice(0, 200)).toBe(200)
    const jv = j.json as ViewExport
    expect(jv).toMatchObject({ format: 'jsonl', media_type: 'application/jsonl', rows: listing.total })
    expect(jv.file_name).toMatch(/^body-edit-view-.+\.jsonl$/)
    const lines = jv.content
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => l['seq'])).toEqual(listing.rows.map((r) => r.seq))
    for (const l of lines) {
      const h = hashes.get(l['seq'] as number)!
      expect([l['canonical_hash'], l['prev_hash'], l['hmac_hash']]).toEqual([h.c, h.p, h.h])
      expect(l['provider']).toBe('anthropic')
      expect(l['marks']).toEqual(l['seq'] === 57 ? ['keyless:body_hash_mismatch'] : [])
    }
    expect(lines.some((l) => l['seq'] === 57)).toBe(true)

    const c = (await call('exportView', { format: 'csv', sort: 'seq_desc', filter })).json as ViewExport
    const rows = c.content.split('\r\n')
    expect(rows[0]).toBe('seq,timestamp_ns,time,provider,model,canonical_hash,prev_hash,hmac_hash,marks')
    expect(rows.at(-1)).toBe('')
    expect(rows.length - 2).toBe(listing.total)
    const r57 = rows.find((r) => r.startsWith('57,'))!.split(',')
    expect(r57[5]).toBe(hashes.get(57)!.c)
    expect(r57[8]).toBe('keyless:body_hash_mismatch')
  })

  it('a reference export file of the view, with a key; refused without one', async () => {
    await open(dbPath('clean'))
    const refused = await call('exportView', { format: 'reference' })
    expect(refused.status).toBe(400)
    expect((refused.json as { error: string }).error).toContain('secret')
    served.session.keys = parseSecrets(secretInputs(['primary']))
    try {
      const whole = (await call('exportView', { format: 'reference' })).json as ViewExport
      expect(whole).toMatchObject({ format: 'reference', rows: 240 })
      const doc = JSON.parse(whole.content) as Record<string, unknown>
      expect(doc['entries_count']).toBe(240)
      expect(doc['segment']).toBeUndefined()
      const ov = (await call('overview')).json as { first_timestamp_ns: string }
      const from = (BigInt(ov.first_timestamp_ns) + 7_200_000_000_000n).toString()
      const part = (await call('exportView', { format: 'reference', filter: { from_ns: from } }))
        .json as ViewExport
      const pdoc = JSON.parse(part.content) as { entries_count: number; segment: unknown }
      expect(pdoc.entries_count).toBe(part.rows)
      expect(part.rows).toBeLessThan(240)
      expect(pdoc.segment).toBeDefined()
      // The project's verify-export accepts both.
      for (const [name, content] of [
        ['whole.json', whole.content],
        ['part.json', part.content],
      ] as const) {
        const f = join(served.dir, name)
        writeFileSync(f, content)
        const v = bijotel(['verify-export', f, '--secret-hex', SECRETS['primary']!])
        expect(v.code, v.stdout + v.stderr).toBe(0)
      }
    } finally {
      served.session.keys = []
    }
  })

  it('saveViewExport: no dialog on the web; through a dialog it writes the file, never the evidence', async () => {
    const web = await call('saveViewExport', { format: 'csv' })
    expect(web.status).toBe(400)
    expect((web.json as { error: string }).error).toContain('no save dialog')
    const local = new AuditSession()
    try {
      let target = join(served.dir, 'saved.jsonl')
      const table = createHandlers(local, { pickSavePath: async () => target })
      await local.open(dbPath('clean'))
      const ctx = { transport: 'ipc', trusted: true } as const
      const saved = await table.saveViewExport({ format: 'jsonl', filter: { model: 'grok-3-mini' } }, ctx)
      expect(saved.path).toBe(target)
      const lines = readFileSync(target, 'utf8').trimEnd().split('\n')
      expect(lines.length).toBe(saved.rows)
      expect(saved.rows).toBeGreaterThan(0)
      target = dbPath('clean')
      await expect(table.saveViewExport({ format: 'csv' }, ctx)).rejects.toThrow(/evidence/)
      expect(existsSync(join(served.dir, 'saved.jsonl'))).toBe(true)
    } finally {
      local.dispose()
    }
  })
})

describe('payload drift series', () => {
  it('each dimension over time per provider/model, the spikes marked as anomalies', async () => {
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    const path = join(served.dir, 'drift.db')
    const t0 = 1_764_000_000_000_000_000n
    const rows: RowSpec[] = Array.from({ length: 400 }, (_, i) => {
      const model = i % 2 === 0 ? 'claude-haiku-4-5' : 'gpt-4o'
      const provider = i % 2 === 0 ? 'anthropic' : 'openai'
      return spanRow({
        timestamp_ns: t0 + BigInt(i) * 60_000_000_000n,
        attributes: {
          'gen_ai.provider.name': provider,
          'gen_ai.request.model': model,
          'gen_ai.usage.input_tokens': i === 300 ? 50_000 : 400 + ((i * 37) % 41),
          'gen_ai.usage.output_tokens': 200 + ((i * 13) % 17),
        },
      })
    })
    writeChain(path, key, rows)
    await open(path)
    const started = await call('startDriftSeries', {
      buckets: 10,
      window: 50,
      dimensions: ['input_tokens', 'cost'],
    })
    expect(started.status, started.text).toBe(200)
    const done = await untilDone<DriftSeries>((started.json as JobStatus).id)
    expect(done.state, done.error ?? '').toBe('done')
    const s = done.result!
    expect(s.groups.map((g) => [g.provider, g.model, g.rows])).toEqual([
      ['anthropic', 'claude-haiku-4-5', 200],
      ['openai', 'gpt-4o', 200],
    ])
    const anth = s.groups[0]!.dimensions.find((d) => d.dimension === 'input_tokens')!
    expect(anth.points).toBe(200)
    expect(anth.buckets).toHaveLength(10)
    expect(anth.buckets.reduce((n, b) => n + b.count, 0)).toBe(200)
    expect(anth.anomalies.map((a) => a.seq)).toEqual([301])
    expect(anth.anomalies[0]).toMatchObject({ value: 50_000, method_triggered: 'both', severity: 'anomaly' })
    expect(s.groups[1]!.dimensions.every((d) => d.anomalies.length === 0)).toBe(true)
    expect(s.anomaly_count).toBeGreaterThanOrEqual(1)
    const cost = s.groups[0]!.dimensions.find((d) => d.dimension === 'cost')!
    expect(cost.anomalies.map((a) => a.seq)).toEqual([301])

    const filtered = (
      await untilDone<DriftSeries>(
        ((await call('startDriftSeries', { provider: 'openai' })).json as JobStatus).id,
      )
    ).result!
    expect(filtered.groups.map((g) => g.provider)).toEqual(['openai'])
    expect((await call('startDriftSeries', { dimensions: ['latency'] })).status).toBe(400)
  })
})
