// Every call of the API contract over real HTTP, against a real AuditSession on the shared fixtures.
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { API_CALLS, type ApiName } from '../../../src/shared/contract'
import type { JobStatus } from '../../../src/shared/job-types'
import type { AuditReport } from '../../../src/shared/report-types'
import { checkReportSignature, signReport } from '../../../src/main/custody/sign'
import { dbPath, expected, FIXTURES, SECRETS, secretInputs } from '../testing/fixtures'
import { callApi, type Reply } from './testkit'
import { serveForSuite, untilJobDone } from '../testing/served'

const served = serveForSuite({ prefix: 'bijotel-contract-', open: dbPath('clean'), keys: ['primary'] })
const covered = new Set<ApiName>()

async function call(name: ApiName, req?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  covered.add(name)
  return served.call(name, req, headers)
}

const untilDone = (id: string): Promise<JobStatus> => untilJobDone(call, id)

describe('contract over HTTP', () => {
  const clean = expected('clean')

  it('appInfo tells the web client what it may do', async () => {
    const r = await call('appInfo')
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({
      name: 'bijotel-auditor',
      transport: 'http',
      can_open_paths: true,
      has_dialogs: false,
      recent_paths: [],
      open_roots: [FIXTURES],
    })
  })

  it('overview, listEntries, locateEntry, getEntry, timeline, checkRow read the opened chain', async () => {
    const ov = await call('overview')
    expect(ov.status).toBe(200)
    expect(ov.json).toMatchObject({ entries: 240, first_seq: 1, last_seq: 240 })

    const page = await call('listEntries', { offset: 10, limit: 5, sort: 'seq_desc' })
    expect(page.status).toBe(200)
    const p = page.json as { total: number; rows: { seq: number }[] }
    expect(p.total).toBe(240)
    expect(p.rows.map((r) => r.seq)).toEqual([230, 229, 228, 227, 226])
    expect((await call('listEntries', { offset: 0, limit: 5000 })).status).toBe(400)

    expect((await call('locateEntry', { seq: 100 })).json).toEqual({ index: 99 })
    expect((await call('locateEntry', { seq: 100, sort: 'seq_desc' })).json).toEqual({ index: 140 })
    expect((await call('locateEntry', { seq: 99999 })).json).toEqual({ index: null })

    const e = await call('getEntry', { seq: 7 })
    expect(e.status).toBe(200)
    expect(e.json).toMatchObject({ seq: 7, prev_seq: 6, next_seq: 8 })
    const missing = await call('getEntry', { seq: 99999 })
    expect(missing.status).toBe(404)
    expect(missing.json).toEqual({ error: 'chain entry seq=99999 not found', code: 'not_found' })
    expect((await call('getEntry', { seq: 'x' })).status).toBe(400)

    // clean.db has no absent seq; times of live seqs only (an absent one is left out, never guessed).
    expect((await call('seqGaps')).json).toEqual({ gaps: [], truncated: false })
    // The names the overview lists, paged from the engine (all of them: clean.db names few).
    const ovNames = (await call('overview')).json as { models: unknown[] }
    const named = await call('listNames', { field: 'model' })
    expect(named.status).toBe(200)
    expect(named.json).toEqual({ names: ovNames.models, matching: ovNames.models.length, offset: 0 })
    expect((await call('listNames', { field: 'span' })).status).toBe(400)
    const times = await call('seqTimes', { seqs: [7, 99999] })
    expect(times.status).toBe(200)
    expect(times.json).toEqual([{ seq: 7, timestamp_ns: (e.json as { timestamp_ns: string }).timestamp_ns }])
    expect((await call('seqTimes', { seqs: 'x' })).status).toBe(400)

    const tl = await call('timeline', { buckets: 12 })
    expect(tl.status).toBe(200)
    const t = tl.json as { buckets: { count: number }[] }
    expect(t.buckets).toHaveLength(12)
    expect(t.buckets.reduce((n, b) => n + b.count, 0)).toBe(240)

    const row = await call('checkRow', { seq: 5 })
    expect(row.status).toBe(200)
    expect(row.json).toMatchObject({ seq: 5, body_hash_ok: true, link_ok: true, hmac_ok: true, key_index: 0 })
  })

  it('setSecrets needs the app token; keys come back as fingerprints only, never the secret', async () => {
    const secret = SECRETS['primary']!
    const refused = await callApi(served.base, 'setSecrets', {
      secrets: [{ encoding: 'hex', value: secret }],
    })
    expect(refused.status).toBe(403)
    expect(refused.json).toMatchObject({ code: 'forbidden' })
    const wrongToken = await call(
      'setSecrets',
      { secrets: [{ encoding: 'hex', value: secret }] },
      { 'X-Bijotel-App-Token': 'x'.repeat(43) },
    )
    expect(wrongToken.status).toBe(403)

    const ok = await call('setSecrets', { secrets: [{ encoding: 'hex', value: secret }] })
    expect(ok.status).toBe(200)
    expect(ok.json).toEqual([
      {
        index: 0,
        encoding: 'hex',
        bytes: secret.length / 2,
        fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
      },
    ])
    expect(ok.text.toLowerCase()).not.toContain(secret.toLowerCase())
    const keys = await call('listKeys')
    expect(keys.json).toEqual(ok.json)
    expect(keys.text.toLowerCase()).not.toContain(secret.toLowerCase())

    const bad = await call('setSecrets', { secrets: [{ encoding: 'hex', value: 'zz-not-hex-' + secret }] })
    expect(bad.status).toBe(400)
    expect(bad.text.toLowerCase()).not.toContain(secret.toLowerCase())
    // A failed setSecrets leaves the keys as they were.
    expect((await call('listKeys')).json).toEqual(ok.json)
  })

  it('startVerify + jobStatus + lastVerdict give the fixture verdict; cancelJob on a finished job is a no-op', async () => {
    const started = await call('startVerify', {})
    expect(started.status).toBe(200)
    const job = started.json as JobStatus
    expect(job).toMatchObject({ kind: 'verify', state: 'running' })
    const done = await untilDone(job.id)
    expect(done.state).toBe('done')
    // The app's verdict also says what the files remember: nothing, on the clean fixture.
    const { recovered, recovery, ...verdict } = done.result as Record<string, unknown>
    expect(verdict).toEqual(clean.verify)
    expect(recovered).toEqual([])
    expect(recovery).toMatchObject({ searched: true, recovered: 0 })
    expect((await call('lastVerdict')).json).toEqual(done.result)
    const c = await call('cancelJob', { id: job.id })
    expect(c.status).toBe(200)
    expect((c.json as JobStatus).state).toBe('done')
    expect((await call('jobStatus', { id: 'no-such-job' })).status).toBe(404)
    expect((await call('cancelJob', { id: 'no-such-job' })).status).toBe(404)
  })

  it('runIntegrity and startIntegrity give the Python report of the fixture', async () => {
    const r = await call('runIntegrity', { window: 100 })
    const started = await call('startIntegrity', { window: 500 })
    expect((await call('runIntegrity', { window: 1 })).status).toBe(400)
    expect(r.status).toBe(200)
    expect((r.json as { report: unknown }).report).toEqual(clean.integrity_window_100)
    expect(started.status).toBe(200)
    const done = await untilDone((started.json as JobStatus).id)
    expect(done.state).toBe('done')
    expect((done.result as { report: unknown }).report).toEqual(clean.integrity_window_500)
  })

  it('checkReplay and listReplayChecks', async () => {
    const c = clean.replay![0]!
    const text = readFileSync(join(FIXTURES, c.file), 'utf8')
    const r = await call('checkReplay', { seq: c.seq, text })
    const file = await call('checkReplay', {
      seq: c.seq,
      file_base64: Buffer.from(text).toString('base64'),
      file_name: c.file,
    })
    const list = await call('listReplayChecks')
    expect(list.status).toBe(200)
    expect((await call('checkReplay', { seq: 1 })).status).toBe(400)
    expect(r.status).toBe(200)
    expect((r.json as { result: unknown }).result).toEqual(c.expected)
    expect(file.status).toBe(200)
    expect((file.json as { result: unknown }).result).toEqual(c.expected)
    expect((list.json as unknown[]).length).toBe(2)
    expect((await call('checkReplay', { seq: 99999, text: 'x' })).status).toBe(404)
  })

  it('checkReplayBatch: every line answered, the checks kept with the session', async () => {
    const c = clean.replay![0]!
    const text = readFileSync(join(FIXTURES, c.file), 'utf8')
    const jsonl = `${JSON.stringify({ seq: c.seq, output: text })}\nnot json\n`
    const before = ((await call('listReplayChecks')).json as unknown[]).length
    const r = await call('checkReplayBatch', { jsonl })
    expect(r.status, r.text).toBe(200)
    const b = r.json as {
      items: { status: string; check: { result: unknown } | null }[]
      summary: { lines: number }
    }
    expect(b.summary.lines).toBe(2)
    expect(b.items.map((i) => i.status).sort()).toEqual(
      ['bad_line', c.expected['match'] ? 'matched' : expect.any(String)].sort(),
    )
    expect(b.items.find((i) => i.check)?.check?.result).toEqual(c.expected)
    expect(((await call('listReplayChecks')).json as unknown[]).length).toBe(before + 1)
    expect((await call('checkReplayBatch', {})).status).toBe(400)
    expect((await call('checkReplayBatch', { jsonl: 'x', jsonl_base64: 'eA==' })).status).toBe(400)
  })

  it('buildReport returns the report; saveReport and pickAndOpenChain have no dialog on the web', async () => {
    const save = await call('saveReport', {})
    expect(save.status).toBe(400)
    expect(save.json).toMatchObject({ code: 'bad_request' })
    const pick = await call('pickAndOpenChain')
    expect(pick.status).toBe(400)
    const r = await call('buildReport', {})
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ evidence: { db: { path: dbPath('clean') } } })
  })

  it('openChain: inside --open-root yes, elsewhere no, non-chains are 422', async () => {
    const other = await call('openChain', { path: dbPath('rotation') })
    expect(other.status).toBe(200)
    expect(other.json).toMatchObject({ evidence: { db: { path: dbPath('rotation') } } })
    expect((await call('overview')).json).toMatchObject({ evidence: { db: { path: dbPath('rotation') } } })

    const outside = await call('openChain', { path: '/etc/passwd' })
    expect(outside.status).toBe(400)
    expect(outside.json).toMatchObject({
      code: 'bad_request',
      error: expect.stringContaining('is outside the folders this server may read'),
    })
    const traversal = await call('openChain', { path: join(FIXTURES, '..', '..', 'etc', 'passwd') })
    expect(traversal.status).toBe(400)

    const notChain = await call('openChain', { path: dbPath('bad-not-sqlite') })
    expect(notChain.status).toBe(422)
    expect(notChain.json).toMatchObject({ code: 'not_a_chain' })
    expect((await call('openChain', {})).status).toBe(400)

    // back to clean for the rest
    expect((await call('openChain', { path: dbPath('clean') })).status).toBe(200)
  })

  it('closeChain, then calls needing a chain are 409 no_chain', async () => {
    const r = await call('closeChain')
    expect(r.status).toBe(200)
    expect(r.json).toBeNull()
    expect((await call('overview')).json).toBeNull()
    const none = await call('listEntries', { offset: 0, limit: 1 })
    expect(none.status).toBe(409)
    expect(none.json).toEqual({ error: 'no chain is open', code: 'no_chain' })
    expect((await call('openChain', { path: dbPath('clean') })).status).toBe(200)
  })

  it('startRecover searches the opened chain: nothing on the clean fixture', async () => {
    const started = await call('startRecover')
    expect(started.status).toBe(200)
    const done = await untilDone((started.json as JobStatus).id)
    expect(done.state).toBe('done')
    expect(done.result).toMatchObject({
      rows: [],
      uncommitted: [],
      summary: { searched: true, recovered: 0 },
    })
  })

  it('currentChain names the chain held (path, SHA-256, open count) beside its overview', async () => {
    const r = await call('currentChain')
    expect(r.status).toBe(200)
    const state = r.json as { chain: { open_id: number; path: string; sha256: string }; overview: unknown }
    const sha = createHash('sha256')
      .update(readFileSync(dbPath('clean')))
      .digest('hex')
    expect(state.chain).toMatchObject({ path: dbPath('clean'), sha256: sha })
    expect(state.overview).toEqual((await call('overview')).json)
    // Opening the same file again is another open: the engine forgot the verdict, the id says so.
    expect((await call('openChain', { path: dbPath('clean') })).status).toBe(200)
    const again = (await call('currentChain')).json as typeof state
    expect(again.chain.open_id).toBe(state.chain.open_id + 1)
    expect(again.chain.sha256).toBe(sha)
    expect((await call('closeChain')).status).toBe(200)
    expect((await call('currentChain')).json).toBeNull()
    expect((await call('openChain', { path: dbPath('clean') })).status).toBe(200)
  })

  it('the working tools answer (issue 26; in depth in tools.test.ts)', async () => {
    const k = await call('keylessVerdict')
    expect(k.status).toBe(200)
    expect(k.json).toMatchObject({ kind: 'keyless-verify' })
    const s = await call('startSearch', { query: 'chat' })
    expect(s.status).toBe(200)
    expect((await untilDone((s.json as JobStatus).id)).state).toBe('done')
    expect((await call('resolveTimeRange', { preset: 'whole_chain' })).json).toMatchObject({ rows: 240 })
    expect((await call('exportView', { format: 'csv' })).json).toMatchObject({ format: 'csv', rows: 240 })
    expect((await call('saveViewExport', { format: 'csv' })).status).toBe(400)
    const d = await call('startDriftSeries', { buckets: 5 })
    expect(d.status).toBe(200)
    expect((await untilDone((d.json as JobStatus).id)).state).toBe('done')
  })

  it('chain of custody: a signing key kept in main signs the export; a report is the prior of the next verify and is checked again', async () => {
    const keyFile = join(served.dir, 'signing.pem')
    const pair = generateKeyPairSync('ed25519')
    writeFileSync(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }))
    // The chain was opened again by the tests above, which cleared its keys (issue 35).
    expect((await call('setSecrets', { secrets: secretInputs(['primary']) })).status).toBe(200)
    expect((await call('signingKey')).json).toBeNull()
    // Over HTTP the key is never set, replaced or removed, not even by the local app (issue 34: serve
    // --sign-key only); and this server has no API key, so it never signs.
    expect((await callApi(served.base, 'setSigningKey', { path: keyFile })).status).toBe(403)
    expect((await call('setSigningKey', { path: keyFile })).status).toBe(403)
    expect((await call('setSigningKey', { path: null })).status).toBe(403)
    expect((await call('signingKey')).json).toBeNull()
    expect((await call('pickSigningKey')).status).toBe(403)

    const built = await call('buildReport', {})
    expect((built.json as AuditReport).signature).toBeUndefined()
    // Signed here, as the auditor's `bijotel report --sign-key` would: a signed report is a prior.
    const report = signReport(built.json as AuditReport, pair.privateKey)
    expect(
      checkReportSignature(report as unknown as Record<string, unknown>, createPublicKey(pair.privateKey))
        .status,
    ).toBe('valid')
    const page = await call('buildReportHtml', {})
    expect((page.json as { html: string; file_name: string }).file_name).toMatch(/^bijotel-report-.+\.html$/)
    expect((page.json as { html: string }).html).toContain(
      '<script type="application/json" id="bijotel-report">',
    )

    const prior = await call('setPrior', { text: JSON.stringify(report) })
    expect(prior.json).toMatchObject({
      kind: 'report',
      last_seq: 240,
      rows: 240,
      signed_by: report.signature!.fingerprint,
    })
    const done = await untilDone(((await call('startVerify', {})).json as JobStatus).id)
    expect(done.result).toMatchObject({ valid: true, prior_check: { found: true, rows_unchanged: true } })
    expect((await call('setPrior', { path: '/etc/passwd' })).status).toBe(400)
    expect((await call('setPrior', { clear: true })).json).toBeNull()
    const without = (await untilDone(((await call('startVerify', {})).json as JobStatus).id)).result
    const { recovered: _r, recovery: _s, ...noPrior } = without as Record<string, unknown>
    expect(noPrior).toEqual(clean.verify)

    const pem = createPublicKey(pair.privateKey).export({ type: 'spki', format: 'pem' }).toString()
    const checked = await call('checkReport', { text: JSON.stringify(report), public_key_pem: pem })
    expect(checked.status).toBe(200)
    expect(checked.json).toMatchObject({ ok: true, signature: { status: 'valid', key: 'provided' } })
    const tampered = { ...report, chain: { ...report.chain, entries: 241 } }
    const bad = await call('checkReport', { text: JSON.stringify(tampered), public_key_pem: pem })
    expect(bad.json).toMatchObject({ ok: false, signature: { status: 'invalid' } })
    expect((bad.json as { fields: { field: string; status: string }[] }).fields).toContainEqual(
      expect.objectContaining({ field: 'chain.entries', status: 'differs' }),
    )
    expect(((await call('buildReport', {})).json as AuditReport).signature).toBeUndefined()
  })

  it('covers every call of API_CALLS', () => {
    expect([...covered].sort()).toEqual([...API_CALLS].sort())
  })
})
