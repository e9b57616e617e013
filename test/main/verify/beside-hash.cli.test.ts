// `bijotel verify` on a chain large enough for row workers (issue 36): a worker warmed while the
// evidence is opened, the rows on it beside the evidence hash, and the main thread taking runs once
// the hash is done. Held to the path without the addon (no hash beside, no warm worker, the rows
// proven in JavaScript): the same verdict and the same evidence line, byte for byte, on a chain
// tampered across its length — and the process ends after its answer (no warm worker left behind).
// Through the private copy (BIJOTEL_READER=sqlite) the workers are warmed while the copy is made.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, ensureBuilt } from '../testing/cli'
import { KEY_HEX, SMALL, tamperRows, writeChainFolder } from '../testing/exact-chains'
import { tempDir } from '../server/testkit'

const tmp = tempDir('bijotel-beside-hash-')
let chain = ''
let small = ''

beforeAll(() => {
  ensureBuilt()
  // 52,000 rows of ≈900 bytes (≈50 MB): past PARALLEL_MIN_ROWS and the size that warms a worker.
  chain = writeChainFolder(join(tmp.dir, 'large'), { ...SMALL, rows: 52_000, bodyBytes: 700 })
  tamperRows(chain, { body: [3, 26_000, 51_990], name: [9_000, 49_000, 52_000], link: [30_001, 51_000] })
  small = writeChainFolder(join(tmp.dir, 'small'), { ...SMALL, rows: 200 })
}, 300_000)

afterAll(() => tmp.cleanup())

function verify(
  db: string,
  env: Record<string, string> = {},
): { code: number | null; out: string; err: string; ms: number } {
  const t0 = Date.now()
  const r = spawnSync(process.execPath, [BIN, 'verify', '--db', db, '--secret-hex', KEY_HEX, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  })
  expect(r.signal, r.stderr).toBeNull()
  return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - t0 }
}

describe('verify beside the evidence hash', () => {
  it('gives the verdict of the path without the addon, tampered rows and evidence line included', () => {
    const beside = verify(chain)
    const plain = verify(chain, { BIJOTEL_NATIVE: '0' })
    expect(beside.code, beside.err).toBe(3) // broken (verify-info.ts EXIT)
    expect(plain.code, plain.err).toBe(3)
    const v = JSON.parse(beside.out) as { valid: boolean; findings: { from_seq: number; to_seq: number }[] }
    expect(v.valid).toBe(false)
    const found = (seq: number): boolean => v.findings.some((f) => f.from_seq <= seq && seq <= f.to_seq)
    for (const s of [3, 26_000, 51_990, 9_000, 49_000, 52_000, 30_001, 51_000])
      expect(found(s), `seq ${s}`).toBe(true)
    expect(found(20_000)).toBe(false)
    expect(beside.out).toBe(plain.out)
  }, 300_000)

  it('through the private copy, its workers warmed while the copy is made, gives the same verdict', () => {
    const copy = verify(chain, { BIJOTEL_READER: 'sqlite' })
    expect(copy.code, copy.err).toBe(3)
    expect(copy.out).toBe(verify(chain, { BIJOTEL_NATIVE: '0' }).out)
  }, 300_000)

  it('ends after its answer, with or without a warm worker', () => {
    for (const env of [{}, { BIJOTEL_READER: 'sqlite' }] as Record<string, string>[])
      for (const db of [chain, small]) {
        const r = verify(db, env)
        expect(r.ms).toBeLessThan(60_000)
        expect(JSON.parse(r.out)).toHaveProperty('valid')
      }
  }, 300_000)
})
