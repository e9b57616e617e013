// Archive segments are handed over by the audited party (issue 39, "Archives"). Archiving moves only
// the rows before the live chain; a segment that holds the rows an attack cut from the middle or the
// tail, or the earlier versions of rows it rewrote, must not turn those findings into `archived`.
// Generated attacks (every page size and journal mode), each verified without segments and then with
// a segment made of exactly the rows recovery found: the findings on the attack's seqs stay.
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSegments } from '../../../src/main/audit/segments'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import type { RecoveredRow } from '../../../src/shared/recovery-types'
import { generateClaims, type Attack } from './claims-generator'

/** A segment file holding `rows` (their sealed values and bodies), as a forger would write it. */
function segmentOf(path: string, rows: RecoveredRow[]): void {
  const s = new Database(path)
  s.exec(CHAIN_TABLE_DDL)
  const ins = s.prepare(`INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind,
    canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`)
  let n = 1_000_000
  s.transaction(() => {
    for (const r of rows)
      ins.run(
        n++,
        r.timestamp_ns === null ? 0 : BigInt(r.timestamp_ns),
        't',
        's',
        'chat gpt-test',
        'CLIENT',
        Buffer.from(r.body_b64 ?? '', 'base64'),
        r.canonical_hash,
        r.prev_hash,
        r.hmac_hash,
        'x',
      )
  })()
  s.close()
}

const ATTACKS: Attack[] = ['delete-middle', 'truncate-tail', 'reseal-tail', 'body-edit']
const SHAPES = [
  { pageSize: 1024, journal: 'wal' },
  { pageSize: 4096, journal: 'delete' },
  { pageSize: 512, journal: 'wal' },
] as const

describe('a segment holding the attacked rows hides nothing', () => {
  let n = 0
  for (const attack of ATTACKS)
    for (const shape of SHAPES) {
      const seed = 0x5e6 + n++
      it(`${attack} p${shape.pageSize} ${shape.journal}`, async () => {
        const g = generateClaims(
          { name: attack, ...shape, history: 'appends-checkpoints', attack, foreign: 'none', rows: 30 },
          seed,
        )
        try {
          const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
          const bare = (await verifyFile(g.db, keys, { recover: true, workers: 1 })).verdict
          const claimed = (bare.recovered ?? []).filter(
            (r) => r.key_index !== null && (r.status === 'deleted' || r.status === 'superseded'),
          )
          const seg = join(g.db, '..', '..', 'forged-segment.db')
          segmentOf(seg, bare.recovered ?? [])
          const segments = await readSegments([seg])
          const withSeg = (await verifyFile(g.db, keys, { recover: true, workers: 1, segments })).verdict
          const kinds = (v: typeof bare): string[] =>
            v.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`).sort()
          expect(kinds(withSeg)).toEqual(kinds(bare))
          for (const r of withSeg.recovered ?? [])
            if (r.seq !== null && g.attacked.has(BigInt(r.seq)) && r.key_index !== null)
              expect(r.status, `seq ${r.seq}`).not.toBe('archived')
          if (claimed.length > 0) expect(withSeg.valid).toBe(false)
        } finally {
          g.cleanup()
        }
      })
    }
})
