// regression's row check names the rows it read that do not hold, by the verifier's findings — whose
// seqs are JSON numbers. Past 2^53 a finding at seq 2^53 + 1 read 2^53, matched no row, and on the
// old code an edited row there read as holding: no note, exit 0. Such seqs are now one line, exit 2
// (as integrity refuses them); chains just below 2^53 are judged and their edited row named, exit 3.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDir, spanRow, writeChain } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { SECRETS } from '../testing/fixtures'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('row-check-past-double')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

describe('regression over seqs past 2^53', () => {
  it('generated chains: refused past 2^53, judged below it', () => {
    const rnd = mulberry32(0x253)
    const key = Buffer.from(SECRETS['primary']!, 'hex')
    for (let c = 0; c < 8; c++) {
      const past = c % 2 === 0
      const n = 60
      const start = past
        ? 2n ** 53n + BigInt(Math.floor(rnd() * 999))
        : 2n ** 53n - BigInt(n + Math.floor(rnd() * 999))
      const edited = Math.floor(rnd() * n)
      const rows = Array.from({ length: n }, (_, i) => ({
        ...spanRow({
          timestamp_ns: 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n,
          attributes: {
            'gen_ai.request.model': 'claude-haiku-4-5',
            'gen_ai.usage.input_tokens': 100 + (i % 7),
          },
        }),
        seq: start + BigInt(i),
        ...(i === edited ? { canonical_hash: 'f'.repeat(64) } : {}),
      }))
      const db = join(scratch.dir, `c${c}.db`)
      writeChain(db, key, rows)
      const r = bijotel(['regression', '--db', db, '--dimension', 'input_tokens'])
      if (past) {
        expect(r.code, `${db} start ${start}`).toBe(2)
        expect(r.stdout).toBe('')
        expect(r.stderr).toMatch(
          /^ERROR: seq \d+ is beyond the exact range of a JSON number \(±2\^53\)[^\n]*\n$/,
        )
      } else {
        expect(r.code, `${db} start ${start} edited ${edited}`).toBe(3)
        expect(r.stderr).toContain(`seq ${start + BigInt(edited)} (body does not hash to its canonical_hash)`)
      }
    }
  }, 120_000)
})
