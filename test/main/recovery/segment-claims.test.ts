// What the archive segments given may make of the rows before the live chain (issue 39, "Archives"):
// a segment that is not an archive of this chain — the evidence file itself, a copy of the live
// chain, another chain's archive under the same key — answers for none of them, so they stay a
// notice ("archived in a segment not given, or deleted"), never `deleted`; so does the true segment with
// some of its rows taken out (a segment proves what it holds was archived, nothing of a row it lacks:
// ./segment-holes.test.ts). Generated over page sizes, journal modes and seeds
// (./claims-generator.ts, archive-with-segment).
import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { generateClaims } from './claims-generator'

type Given = 'evidence-itself' | 'live-copy' | 'other-chain' | 'segment-minus-rows'
const GIVEN: Given[] = ['evidence-itself', 'live-copy', 'other-chain', 'segment-minus-rows']

describe('segments that are not this chain’s archive, or lack rows, accuse nothing', () => {
  let n = 0
  for (const given of GIVEN)
    for (const [pageSize, journal] of [
      [4096, 'wal'],
      [1024, 'wal'],
      [1024, 'delete'],
      [512, 'wal'],
    ] as const) {
      const seed = 0x5e6 + n++
      it(`${given}, ${journal} p${pageSize}`, async () => {
        const c = {
          name: given,
          pageSize,
          journal,
          history: 'archive-with-segment' as const,
          attack: 'none' as const,
          foreign: 'none' as const,
          rows: 30,
        }
        const g = generateClaims(c, seed)
        const other = given === 'other-chain' ? generateClaims(c, seed + 1000) : null
        try {
          const dir = dirname(g.segments[0]!)
          let segment = g.segments[0]!
          let taken: number[] = []
          if (given === 'evidence-itself') segment = g.db
          if (given === 'live-copy') {
            segment = join(dir, 'live-copy.db')
            copyFileSync(g.db, segment)
            if (existsSync(`${g.db}-wal`)) copyFileSync(`${g.db}-wal`, `${segment}-wal`)
          }
          if (given === 'other-chain') segment = other!.segments[0]!
          if (given === 'segment-minus-rows') {
            const s = new Database(segment)
            taken = [4, 5]
            s.prepare('DELETE FROM chain WHERE seq IN (4, 5)').run()
            s.close()
          }
          const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
          const segments = await readSegments([segment])
          const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1, segments })
          const rows = verdict.recovered ?? []
          const deleted = rows.filter((r) => r.status === 'deleted').map((r) => r.seq)
          // Rows the links place before the live chain that the segment lacks (between rows it holds, or
          // not): a notice, never `deleted`.
          if (given === 'segment-minus-rows' && journal === 'wal')
            expect(
              rows.filter((r) => r.status === 'before_live').map((r) => r.seq),
              'the old WAL images keep rows 4 and 5',
            ).toEqual(taken)
          expect(deleted, given).toEqual([])
          expect(verdict.findings, given).toEqual([])
          expect(verdict.valid).toBe(true)
          if (rows.some((r) => r.status === 'before_live'))
            expect(verdict.notices?.some((x) => x.includes('in none of the archive segments given'))).toBe(
              true,
            )
        } finally {
          g.cleanup()
          other?.cleanup()
        }
      })
    }
})
