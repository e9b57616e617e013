// Rows rewritten byte for byte by an honest UPSERT (issue 39, round 10): INSERT OR REPLACE of rows with
// their own values (the old cells deleted, the same ones inserted), an UPDATE setting columns to
// themselves, and ON CONFLICT DO UPDATE — then, or not, a checkpoint that moves the file to DELETE
// mode (the old versions left in free pages and, with overflow, as hash triples only). Every old
// version is the live row's seal: no finding, the file VALID, over key rotation and page sizes.
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { evidenceAfter, keysOf } from './attack-findings'
import { generateClaims, type History } from './claims-generator'

const UPSERTS = [
  'INSERT OR REPLACE INTO chain SELECT * FROM chain WHERE seq BETWEEN 5 AND 12',
  'UPDATE chain SET canonical_body = canonical_body, hmac_hash = hmac_hash WHERE seq > 15',
  'INSERT INTO chain SELECT * FROM chain WHERE seq > 20 ON CONFLICT(seq) DO UPDATE SET canonical_body = excluded.canonical_body',
]

describe('an honest UPSERT rewriting rows byte for byte is no finding', () => {
  let n = 0
  for (const sql of UPSERTS)
    for (const checkpoint of [false, true])
      for (const pageSize of [512, 4096]) {
        const seed = 0x0e10 + n
        const history: History = n % 2 === 0 ? 'appends-checkpoints' : 'rotation'
        n++
        const name = `${sql.slice(0, 40)}… ${checkpoint ? 'then WAL→DELETE' : ''} (${history}, p${pageSize})`
        it(name, async () => {
          const g = generateClaims(
            { name, pageSize, journal: 'wal', history, attack: 'none', foreign: 'none', rows: 26 },
            seed,
          )
          try {
            const evidence = evidenceAfter(g.db, 'upsert.db', (db) => {
              db.exec(sql)
              if (checkpoint) db.pragma('journal_mode = DELETE')
            })
            const { verdict: v } = await verifyFile(evidence, keysOf(g.keys), { recover: true, workers: 1 })
            expect(v.recovery?.searched, name).toBe(true)
            expect(
              v.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`),
              name,
            ).toEqual([])
            expect(v.valid, name).toBe(true)
          } finally {
            g.cleanup()
          }
        })
      }
})
