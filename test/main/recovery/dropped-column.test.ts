// A column dropped, or the columns reordered (issue 39, round 9): `ALTER TABLE chain DROP COLUMN`
// rewrites every row (sqlite alter.c), and a table rebuilt with its columns in another order holds
// its rows anew; the rows written before — the attack's among them, in WAL frames and free pages —
// are in the reference's layout, which no longer matched the table's, so the search found none of
// them: a cut tail, a deleted block or a reseal followed by such a migration read VALID. Records
// are now matched in the reference's layout too. Generated over migrations, attacks and page sizes:
// the findings lie on the attack's seqs and cover them; a migration alone makes none.
import { describe, it } from 'vitest'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { expectMigratedAttack } from './attack-findings'
import type { Attack } from './claims-generator'

const REORDERED = CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'moved')
  .replace('    semantic_body_hash TEXT\n', '')
  .replace('timestamp_ns INTEGER NOT NULL,', 'semantic_body_hash TEXT,\n    timestamp_ns INTEGER NOT NULL,')
  .replace('prev_hash TEXT NOT NULL,', '')
  .replace('canonical_body BLOB NOT NULL,', 'prev_hash TEXT NOT NULL,\n    canonical_body BLOB NOT NULL,')
  .replace(/,\s*\)$/, ')')

const MIGRATIONS = [
  'DROP INDEX IF EXISTS idx_chain_semhash; ALTER TABLE chain DROP COLUMN semantic_body_hash',
  'ALTER TABLE chain DROP COLUMN span_kind',
  'ALTER TABLE chain DROP COLUMN span_id',
  'DROP INDEX IF EXISTS idx_chain_trace; ALTER TABLE chain DROP COLUMN trace_id',
  'DROP INDEX IF EXISTS idx_chain_semhash; ALTER TABLE chain DROP COLUMN span_kind; ALTER TABLE chain DROP COLUMN semantic_body_hash',
  `${REORDERED}; INSERT INTO moved (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
    canonical_hash, prev_hash, hmac_hash, semantic_body_hash) SELECT seq, timestamp_ns, trace_id, span_id,
    span_name, span_kind, canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash FROM chain;
    DROP TABLE chain; ALTER TABLE moved RENAME TO chain`,
]
const ATTACKS: Attack[] = ['none', 'truncate-tail', 'delete-middle', 'reseal-tail']
describe('rows written before a column was dropped or the columns moved are searched', () => {
  let n = 0
  for (const migration of MIGRATIONS)
    for (const attack of ATTACKS) {
      const seed = 0xd70 + n
      const pageSize = [1024, 4096, 512, 2048][n % 4]!
      n++
      const name = `${attack}, then ${migration.slice(0, 60).replace(/\s+/g, ' ')} (wal p${pageSize})`
      it(name, () => expectMigratedAttack(name, pageSize, attack, seed, migration))
    }
})
