// Seqs past 2^53: doubles there are 2 apart, so `s++` on a finding's from_seq gives the same number
// again. On the old code `bodyBadSeqs` (recovery, run by every verify) walked a body_hash_mismatch
// finding at seq 2^53 + 1 that way and never returned: `verify` and `verify --keyless` hung on a
// 60-row chain (the app's flagged set and the rows' marks walked findings the same way). Generated
// chains whose seqs start past 2^53, one body edited at a random row: every verify ends, exit 3.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { flaggedSeqs } from '../../../src/main/session/flagged'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { scratchDir, spanRow, writeChain } from '../reliability/chainkit'
import { ensureBuilt } from '../testing/cli'
import { REPO_ROOT, SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('seqs-past-double')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const CLI = join(REPO_ROOT, 'out', 'main', 'cli.js')

describe('findings past 2^53 are walked to their end', () => {
  it('verify and verify --keyless end on generated chains (exit 3)', () => {
    const rnd = mulberry32(0x2053)
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    for (let c = 0; c < 6; c++) {
      const start = 2n ** 53n + BigInt(Math.floor(rnd() * 1000)) * (rnd() < 0.5 ? 1n : 2n ** 8n)
      const n = 10 + Math.floor(rnd() * 30)
      const edited = Math.floor(rnd() * n)
      const rows = Array.from({ length: n }, (_, i) => ({
        ...spanRow({
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          attributes: { i },
        }),
        seq: start + BigInt(i),
        ...(i === edited ? { canonical_hash: 'f'.repeat(64) } : {}),
      }))
      const db = join(scratch.dir, `c${c}.db`)
      writeChain(db, key, rows)
      for (const keys of [['--keyless'], ['--secret-hex', SECRETS['primary']!]]) {
        const r = spawnSync('node', [CLI, 'verify', '--db', db, ...keys], {
          encoding: 'utf8',
          timeout: 30_000,
        })
        expect(r.signal, `${db} ${keys[0]} start ${start} edited ${edited}`).toBeNull()
        expect(r.status).toBe(3)
      }
    }
  }, 240_000)

  it('the flagged set of such findings ends', () => {
    const at = 2 ** 53
    const verdict = {
      findings: [{ kind: 'body_hash_mismatch', from_seq: at, to_seq: at + 8, count: 5 }],
    } as unknown as VerifyVerdict
    const got = flaggedSeqs(verdict, null)
    expect([...got]).toEqual([at, at + 8])
  })
})
