import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReplayCheck } from '../../../src/shared/replay-types'
import { REPORT_SCHEMA_ID, REPORT_SCHEMA_VERSION, type AuditReport } from '../../../src/shared/report-types'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { seeded, TempChains } from '../integrity/testchain'
import { dbPath, expected, fingerprintFolder, fixtureNames, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/chain/keys'
import { TOOL_VERSION } from '../../../src/main/base/version'
import { buildAuditReport } from '../../../src/main/audit/build-report'
import { loadSchema, reportValidator } from '../testing/report-schema'

let before: Map<string, string>
const chains = new TempChains()
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  chains.dispose()
  expect(fingerprintFolder()).toEqual(before)
})

const validate = reportValidator()

function expectValid(report: unknown): void {
  const ok = validate(JSON.parse(JSON.stringify(report)))
  expect(validate.errors ?? null, JSON.stringify(validate.errors, null, 2)).toBeNull()
  expect(ok).toBe(true)
}

async function reportFor(
  path: string,
  opts: Omit<Parameters<typeof buildAuditReport>[0], 'chain'> = {},
): Promise<AuditReport> {
  const chain = await OpenedChain.open(path)
  try {
    return await buildAuditReport({ chain, ...opts })
  } finally {
    chain.close()
  }
}

const replayCheck: ReplayCheck = {
  seq: 1,
  result: {
    match: true,
    original_hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    replay_hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    deterministic: true,
    model_version: 'claude-sonnet-4-5-20250929',
    reason: null,
  },
  row_verified: true,
  row_detail: 'row verifies (body hash, link, HMAC under key #1)',
  prompt_match: null,
  prompt_detail: null,
  source: {
    kind: 'text',
    name: null,
    bytes: 11,
    sha256_of_bytes: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    mode: 'python',
  },
  checked_at: '2026-12-02T18:00:00.000Z',
}

describe('buildAuditReport', () => {
  it('every fixture, with its key set: schema-valid, verdict and integrity as expected', async () => {
    for (const name of fixtureNames()) {
      const exp = expected(name)
      const keys = parseSecrets(secretInputs(exp.secrets))
      const r = await reportFor(dbPath(name), { keys, integrityOptions: { window: 100 } })
      expectValid(r)
      // Python's verdict, plus the sqlite_sequence witness notice verify gives (./witness.ts): a file
      // whose sqlite_sequence is above its head (rows-renumbered) carries it in the report too.
      const { notices, ...verdict } = r.verification!.verdict
      expect(verdict, name).toEqual(exp.verify)
      const witness = (notices ?? []).filter((n) => n.startsWith('sqlite_sequence records seq'))
      expect(notices ?? [], name).toEqual(witness)
      if (name === 'rows-renumbered') expect(witness, name).toHaveLength(1)
      if (name !== 'rotation') expect(r.integrity.report, name).toEqual(exp.integrity_window_100)
      expect(r.evidence.db.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(dbPath(name)))
          .digest('hex'),
      )
      expect(r.chain.entries).toBe(exp.verify['entries'])
    }
  })

  it('the header fields', async () => {
    const r = await reportFor(dbPath('clean'), { now: () => new Date('2026-12-02T12:00:00Z') })
    expect(r.$schema).toBe(REPORT_SCHEMA_ID)
    expect(loadSchema()['$id']).toBe(REPORT_SCHEMA_ID)
    expect(r.schema_version).toBe(REPORT_SCHEMA_VERSION)
    expect(r.tool).toEqual({
      name: 'bijotel-auditor',
      version: TOOL_VERSION,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    })
    expect(r.generated_at).toBe('2026-12-02T12:00:00.000Z')
    expect(r.chain).toEqual({ entries: 240, first_seq: 1, last_seq: 240 })
    expect(r.replay_checks).toEqual([])
  })

  it('without keys: verification null, the note says so, rotation not checked', async () => {
    const r = await reportFor(dbPath('rotation'), { integrityOptions: { all: true } })
    expectValid(r)
    expect(r.verification).toBeNull()
    expect(r.verification_note).toMatch(/^not verified: no secret was given/)
    expect(r.integrity.rotation_checked).toBe(false)
    expect(r.integrity.report).toEqual(expected('rotation').integrity_window_500)
  })

  it('rotation with both keys and --all reuses the whole-chain verdict: boundary at 161', async () => {
    const keys = parseSecrets(secretInputs(['primary', 'rotated']))
    const r = await reportFor(dbPath('rotation'), { keys, integrityOptions: { all: true } })
    expectValid(r)
    expect(r.verification?.keys.map((k) => k.index)).toEqual([0, 1])
    expect(r.verification_note).toBe('every row verified with 2 candidate keys: chain VALID (240 entries)')
    expect(r.integrity.mode).toBe('all')
    expect(r.integrity.report.rotation_boundaries).toEqual([
      { seq: 161, detail: 'sealing key changed from key #1 to key #2 at seq=161' },
    ])
  })

  it('a broken chain: note names the first bad seq', async () => {
    const r = await reportFor(dbPath('row-deleted'), { keys: parseSecrets(secretInputs(['primary'])) })
    expect(r.verification?.verdict.valid).toBe(false)
    expect(r.verification_note).toBe(
      `verified with 1 candidate key: chain BROKEN, ${r.verification!.verdict.findings.length} findings, first at seq=${expected('row-deleted').verify['first_bad_seq']}`,
    )
  })

  it('replay checks and thresholds are carried; empty chain is valid too', async () => {
    const r = await reportFor(chains.write(seeded(25)), {
      replayChecks: [replayCheck],
      integrityOptions: { window: 10, thresholds: { burst_threshold: 3 } },
    })
    expectValid(r)
    expect(r.replay_checks).toEqual([replayCheck])
    expect(r.integrity.thresholds.burst_threshold).toBe(3)
    const empty = await reportFor(chains.write([]))
    expectValid(empty)
    expect(empty.chain).toEqual({ entries: 0, first_seq: null, last_seq: null })
    expect(empty.integrity.report.window).toBe(0)
  })

  it('progress phases and cancellation', async () => {
    const phases = new Set<string | undefined>()
    await reportFor(dbPath('clean'), {
      keys: parseSecrets(secretInputs(['primary'])),
      integrityOptions: { all: true },
      onProgress: (_d, _t, p) => phases.add(p),
    })
    expect([...phases]).toEqual(['verify', 'integrity'])
    await expect(
      reportFor(dbPath('clean'), { integrityOptions: { all: true }, signal: { aborted: true } }),
    ).rejects.toMatchObject({ code: 'cancelled' })
  })
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>

describe('the schema is strict', () => {
  let good: AuditReport
  beforeAll(async () => {
    good = await reportFor(dbPath('provider-shift'), {
      keys: parseSecrets(secretInputs(['primary'])),
      replayChecks: [replayCheck],
    })
    expectValid(good)
  })
  const mutate = (f: (r: Loose) => void): unknown => {
    const copy = JSON.parse(JSON.stringify(good)) as Loose
    f(copy)
    return copy
  }
  it.each([
    ['an extra top-level field', (r: Loose) => (r['extra'] = 1)],
    ['a missing required field', (r: Loose) => delete r['evidence']],
    ['a wrong $schema', (r: Loose) => (r['$schema'] = 'x')],
    ['a bad sha256', (r: Loose) => (r['evidence']['db']['sha256'] = 'ABC')],
    [
      'an unknown anomaly type',
      (r: Loose) =>
        r['integrity']['report']['timestamp_anomalies'].push({
          seq: 1,
          type: 'weird',
          delta_sec: 0,
          detail: 'x',
        }),
    ],
    ['a float seq', (r: Loose) => (r['integrity']['report']['first_seq'] = 1.5)],
    ['an unknown mode', (r: Loose) => (r['integrity']['mode'] = 'some')],
    [
      'an extra field in a shift entry',
      (r: Loose) => (r['integrity']['report']['provider_shift']['shifts']['xai']['x'] = 1),
    ],
    ['a key with the secret in it', (r: Loose) => (r['verification']['keys'][0]['secret'] = 'a5a5')],
    [
      'an unknown finding kind',
      (r: Loose) =>
        r['verification']['verdict']['findings'].push({ kind: 'oops', from_seq: 1, to_seq: 1, count: 1 }),
    ],
    ['a bad replay mode', (r: Loose) => (r['replay_checks'][0]['source']['mode'] = 'lossy')],
    ['a non-ISO generated_at', (r: Loose) => (r['generated_at'] = 'yesterday')],
  ])('rejects %s', (_what, f) => {
    expect(validate(mutate(f))).toBe(false)
  })
})
