// verify-continuity on archive segments that hold some of the same seqs (issue 38, round 10): the
// same rows cut twice join (counted once), a segment wholly inside an earlier one leaves the next to
// join the earlier one's end, and two segments that hold different rows after the same row — or whose
// later one was not sealed after the earlier one's row — are two chains, said as such. Seeded cuts of
// synthetic chains written with node:crypto seals (chainkit), read through the real readers.
import Database from 'better-sqlite3'
import { copyFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyContinuity } from '../../../src/main/audit/continuity'
import { parseSecrets } from '../../../src/main/chain/keys'
import { continuityText } from '../../../src/main/cli/commands/verify-continuity'
import type { ContinuityResult } from '../../../src/shared/verify-types'
import { scratchDir, spanRow, spanRows, writeChain, type RowSpec } from '../reliability/chainkit'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('continuity-overlap')
afterAll(() => scratch.cleanup())

const KEY = Buffer.from('6f'.repeat(32), 'hex')
const keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
const N = 120
let files = 0

/** A chain of N rows; `alter` (a 1-based seq) gets another body, and every seal after it differs. */
function chain(alter?: number): string {
  const rows: RowSpec[] = spanRows(N)
  if (alter !== undefined)
    rows[alter - 1] = spanRow({
      timestamp_ns: 1_764_000_000_000_000_000n + BigInt(alter - 1) * 1_000_000_000n,
      attributes: { i: `other ${alter}` },
    })
  const path = join(scratch.dir, `chain-${++files}.db`)
  writeChain(path, KEY, rows)
  return path
}

/** Rows from..to of `whole`, in a file of their own (an archive cut). */
function cut(whole: string, from: number, to: number): string {
  const path = join(scratch.dir, `cut-${++files}.db`)
  copyFileSync(whole, path)
  const db = new Database(path)
  try {
    db.prepare('DELETE FROM chain WHERE seq < ? OR seq > ?').run(from, to)
  } finally {
    db.close()
  }
  return path
}

const run = (paths: string[], chunk: number, withKey = true): Promise<ContinuityResult> =>
  verifyContinuity(paths, withKey ? keys : [], { overlapChunk: chunk })

const int = (rnd: () => number, lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1))

describe('verify-continuity: overlapping segments', () => {
  const base = chain()

  it('joins the same rows cut twice, counted once, with and without the key (generated)', async () => {
    const rnd = mulberry32(1001)
    for (let i = 0; i < 12; i++) {
      const x = int(rnd, 10, N - 5)
      const y = int(rnd, 2, x)
      const chunk = int(rnd, 1, 9)
      const paths = [cut(base, 1, x), cut(base, y, N)]
      for (const withKey of [true, false]) {
        const r = await run(paths, chunk, withKey)
        expect(r.valid, `x=${x} y=${y} chunk=${chunk}`).toBe(true)
        expect(r.boundaries[0]).toMatchObject({
          matches: true,
          overlap: { from_seq: y, to_seq: x, first_differing_seq: null },
        })
        expect(continuityText(r).out).toContain(`Full chain: ${N} entries across 2 segments, CONTINUOUS.`)
      }
    }
  })

  it('joins the segment after a contained or duplicated one to the end of the earlier (generated)', async () => {
    const rnd = mulberry32(2002)
    for (let i = 0; i < 8; i++) {
      const z = int(rnd, 20, N - 10)
      const y1 = i % 2 === 0 ? 1 : int(rnd, 2, z)
      const y2 = i % 2 === 0 ? z : int(rnd, y1, z)
      const [a, inner, c] = [cut(base, 1, z), cut(base, y1, y2), cut(base, z + 1, N)]
      const r = await run([a, inner, c], int(rnd, 1, 9))
      expect(r.valid, `z=${z} inner=${y1}-${y2}`).toBe(true)
      expect(r.boundaries.map((b) => [b.from_db, b.to_db, b.matches])).toEqual([
        [a, inner, true],
        [a, c, true],
      ])
      expect(continuityText(r).out).toContain(`Full chain: ${N} entries across 3 segments, CONTINUOUS.`)
    }
  })

  it('names the first seq where two overlapping segments hold different rows after the same row (generated)', async () => {
    const rnd = mulberry32(3003)
    for (let i = 0; i < 10; i++) {
      const x = int(rnd, 20, N - 5)
      const y = int(rnd, 2, x - 1)
      const s = int(rnd, y, x)
      const chunk = int(rnd, 1, 12)
      const r = await run([cut(base, 1, x), cut(chain(s), y, N)], chunk)
      expect(r.valid).toBe(false)
      expect(r.segments.every((g) => g.valid)).toBe(true)
      const b = r.boundaries[0]!
      expect(b, `x=${x} y=${y} s=${s} chunk=${chunk}`).toMatchObject({
        matches: false,
        expected: b.actual,
        overlap: { from_seq: y, to_seq: x, first_differing_seq: s },
      })
      expect(b.reason).toContain(`hold different rows from seq ${s}, each sealed after the same row`)
      expect(continuityText(r).out).not.toContain('CONTINUOUS')
    }
  })

  it('says two chains when the later segment was not sealed after the earlier one’s row (generated)', async () => {
    const rnd = mulberry32(4004)
    for (let i = 0; i < 8; i++) {
      const x = int(rnd, 20, N - 5)
      const y = int(rnd, 2, x)
      // The other chain differs at y-1: its row y (the same body) was sealed after another row.
      const r = await run([cut(base, 1, x), cut(chain(y - 1), y, N)], int(rnd, 1, 9))
      expect(r.valid).toBe(false)
      const b = r.boundaries[0]!
      expect(b.matches).toBe(false)
      expect(b.expected).not.toBe(b.actual)
      expect(b.reason, `x=${x} y=${y}`).toContain(
        `but the next segment's first prev_hash is not the hmac_hash`,
      )
      expect(continuityText(r).out).toContain(
        `    expected (prev segment's hmac at seq ${y - 1}): ${b.expected}`,
      )
    }
  })

  it('reads each segment once: a file put at a verified segment’s path never makes two versions one chain (generated, both readers)', async () => {
    const rnd = mulberry32(5005)
    for (let i = 0; i < 6; i++) {
      const x = int(rnd, 30, N - 5)
      const y = int(rnd, 2, x - 20)
      const s = int(rnd, y, y + 5)
      const z = int(rnd, s + 1, x - 1)
      // Two versions: the base chain's seqs 1..x, and another chain's y..z that differs from seq s.
      const fork = chain(s)
      const [a, b] = [cut(base, 1, x), cut(fork, y, z)]
      // Made to pass a read that checks only the ends and the links: the other version's 1..x, with
      // the base's last hmac_hash written on its last row (nothing there checks the HMAC).
      const other = cut(fork, 1, x)
      const db = new Database(a, { readonly: true })
      const last = db.prepare('SELECT hmac_hash FROM chain WHERE seq = ?').pluck().get(x) as string
      db.close()
      const w = new Database(other)
      w.prepare('UPDATE chain SET hmac_hash = ? WHERE seq = ?').run(last, x)
      w.close()
      const env = i % 2 === 0 ? {} : { BIJOTEL_READER: 'sqlite' }
      const what = `x=${x} y=${y} s=${s} z=${z} ${env.BIJOTEL_READER ?? 'direct'}`
      const honest = await verifyContinuity([a, b], keys, { overlapChunk: 4, env })
      expect(honest.boundaries[0], what).toMatchObject({
        matches: false,
        overlap: { first_differing_seq: s },
      })
      const r = await verifyContinuity([a, b], keys, {
        overlapChunk: int(rnd, 1, 9),
        env,
        // After the first segment is verified, its path names the made-up version.
        onSegment: (k) => (k === 1 ? renameSync(other, a) : undefined),
      })
      expect(r.valid, what).toBe(false)
      expect(continuityText(r).out).not.toContain('CONTINUOUS')
      copyFileSync(cut(base, 1, x), a)
    }
  })
})
