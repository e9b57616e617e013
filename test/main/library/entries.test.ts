// The library entries from the sources: each subpath's names are in the root entry, and the
// functions answer what the shared fixtures' independent expectations say (verify, integrity,
// replay), with secrets given the ways a library caller gives them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as root from '../../../src/main/library/index'
import * as integrity from '../../../src/main/library/integrity'
import * as replay from '../../../src/main/library/replay'
import * as verify from '../../../src/main/library/verify'
import * as writer from '../../../src/main/library/writer'
import { keyMaterial, type ChainSecret } from '../../../src/main/library/secrets'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, expected, FIXTURES, fixtureNames, SECRETS, secretInputs } from '../testing/fixtures'

/** A fixture's candidate keys as a library caller passes them: hex strings, `{ text }` for raw. */
function secretsOf(names: string[]): ChainSecret[] {
  return names.map((n) => (n === 'raw_text' ? { text: SECRETS[n]! } : SECRETS[n]!))
}

describe('entries', () => {
  it('the root entry exports every name of every subpath entry, as the same value', () => {
    for (const sub of [writer, verify, integrity, replay] as Record<string, unknown>[]) {
      for (const [name, value] of Object.entries(sub))
        expect((root as Record<string, unknown>)[name]).toBe(value)
    }
  })

  it('carries the names of Python BIJOTEL public API', () => {
    for (const name of [
      'recordReplayContext',
      'verifyReplay',
      'analyzeChainIntegrity',
      'ChainIntegrityMonitor',
      'verifyChain',
      'BijotelChainSpanProcessor',
      'appendEvent',
      'ChainWriter',
    ])
      expect(typeof (root as Record<string, unknown>)[name]).toBe('function')
  })
})

describe('verifyChain', () => {
  for (const name of fixtureNames()) {
    it(`${name}: the fixture's expected verdict`, async () => {
      const exp = expected(name)
      const verdict = await root.verifyChain(dbPath(name), { secrets: secretsOf(exp.secrets) })
      expect(verdict).toMatchObject(exp.verify)
    })
  }

  it('takes one key as bytes, the same as its hex', async () => {
    const hex = SECRETS['primary']!
    const a = await root.verifyChain(dbPath('clean'), { secrets: hex })
    const b = await root.verifyChain(dbPath('clean'), { secrets: Buffer.from(hex, 'hex') })
    expect(b).toEqual(a)
    expect(a.valid).toBe(true)
  })

  it('maps range to the CLI range options (--range, --last)', async () => {
    const keys = parseSecrets(secretInputs(['primary']))
    const cases = [
      [
        { seqStart: 50, seqEnd: 90 },
        { seq_start: 50, seq_end: 90 },
      ],
      [{ lastN: 25 }, { last_n: 25 }],
    ] as const
    for (const [range, options] of cases) {
      const lib = await root.verifyChain(dbPath('clean'), { secrets: SECRETS['primary']!, range })
      const engine = (await verifyFile(dbPath('clean'), keys, { range: options, recover: true })).verdict
      expect(lib).toEqual(engine)
      expect(lib.range).toBeDefined()
    }
  })

  it('refuses a missing key, a bad key and a bad range in one line (AuditError)', async () => {
    const path = dbPath('clean')
    await expect(root.verifyChain(path, { secrets: [] })).rejects.toMatchObject({ code: 'no_secret' })
    await expect(root.verifyChain(path, { secrets: 'zz' })).rejects.toMatchObject({ code: 'bad_secret' })
    await expect(
      root.verifyChain(path, { secrets: SECRETS['primary']!, range: { lastN: 0 } }),
    ).rejects.toMatchObject({ code: 'bad_argument' })
    const missing = join(FIXTURES, 'no-such-chain.db')
    await expect(root.verifyChain(missing, { secrets: SECRETS['primary']! })).rejects.toBeInstanceOf(
      root.AuditError,
    )
  })

  it('never shows a key in an error', () => {
    const secret = 'not-hex-but-secret-words'
    expect(() => keyMaterial([SECRETS['primary']!, secret])).toThrow(/secret #2 \(24 characters\)/)
    try {
      keyMaterial(secret)
    } catch (e) {
      expect((e as Error).message).not.toContain('secret-words')
    }
  })
})

describe('analyzeChainIntegrity and ChainIntegrityMonitor', () => {
  for (const name of fixtureNames()) {
    it(`${name}: Python's integrity --json for windows 100 and 500`, async () => {
      const exp = expected(name)
      expect(await root.analyzeChainIntegrity(dbPath(name), { window: 100 })).toEqual(
        exp.integrity_window_100,
      )
      const monitor = new root.ChainIntegrityMonitor(dbPath(name), { window: 500 })
      expect(await monitor.analyze()).toEqual(exp.integrity_window_500)
    })
  }

  it('says what the CLI prints, and refuses a window out of range', async () => {
    const run = await root.runChainIntegrity(dbPath('burst'), { window: 100 })
    expect(root.integrityText(run)).toMatch(/^Chain integrity: \d+ ANOMALIES/)
    expect(root.integrityReportJson(run.report)).toBe(
      root.integrityReportJson(await root.analyzeChainIntegrity(dbPath('burst'))),
    )
    await expect(root.analyzeChainIntegrity(dbPath('clean'), { window: 1 })).rejects.toMatchObject({
      code: 'bad_argument',
    })
  })

  it('finds rotation boundaries when given the candidate keys', async () => {
    const exp = expected('rotation')
    const report = await root.analyzeChainIntegrity(dbPath('rotation'), {
      all: true,
      secrets: secretsOf(exp.secrets),
    })
    const keySeqs = (exp.verify['key_segments'] as { from_seq: number }[]).slice(1).map((s) => s.from_seq)
    expect(report.rotation_boundaries.map((b) => b.seq)).toEqual(keySeqs)
  })
})

describe('replay', () => {
  for (const name of fixtureNames()) {
    const cases = expected(name).replay ?? []
    if (cases.length === 0) continue
    it(`${name}: verifyReplay and checkChainReplay give the expected ReplayResult`, async () => {
      for (const c of cases) {
        // Read as Python's text mode does (universal newlines), as the fixture's expectation was.
        const output = readFileSync(join(FIXTURES, c.file), 'utf8').replace(/\r\n?/g, '\n')
        const check = await root.checkChainReplay(dbPath(name), {
          seq: c.seq,
          output,
          secrets: secretsOf(expected(name).secrets),
        })
        expect(check.result).toEqual(c.expected)
        // The same output as bytes is hashed as it is (the CLI's --raw).
        const raw = await root.checkChainReplay(dbPath(name), {
          seq: c.seq,
          output: Buffer.from(output, 'utf8'),
        })
        expect(raw.result).toEqual(c.expected)
        expect(raw.source.mode).toBe('raw')
        expect(raw.row_verified).toBeNull()
      }
    })
  }

  it('recordReplayContext attributes make verifyReplay match the same output only', () => {
    const attributes = root.recordReplayContext({ prompt: 'hi', output: 'hello', model: 'm', seed: 7 })
    expect(root.verifyReplay({ attributes }, 'hello').match).toBe(true)
    const drift = root.verifyReplay({ attributes }, 'hello!')
    expect(drift.match).toBe(false)
    expect(drift.reason).toContain("SAME model version that produced the original ('m')")
  })
})
