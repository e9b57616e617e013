// A column added with a DEFAULT (issue 39, round 9): `ALTER TABLE chain ADD COLUMN … DEFAULT …` leaves
// the records written before it short, and SQLite reads the default where they end (file-format §2.1).
// The direct reader opens such a table but declines its short records, and the search stopped at
// the live rows' reading: 'not searched (… short record where a DEFAULT would be read)'; a column of
// REAL affinity (OP_RealAffinity) was declined at the open ('column … reads as REAL'). So an
// insider who added such a column after cutting the tail, deleting a block or resealing read VALID
// while the WAL still held the rows before the attack. Generated over defaults, attacks and page
// sizes: the search runs (through the plain view, whose rows hold the values SQLite read), its
// findings lie on the attack's seqs and cover them; a migration alone makes none.
import { describe, it } from 'vitest'
import { expectMigratedAttack } from './attack-findings'
import type { Attack } from './claims-generator'

const COLUMNS = [
  "note TEXT DEFAULT 'migrated'",
  'tokens INTEGER NOT NULL DEFAULT 0',
  'cost REAL DEFAULT 0.5',
  "flag BLOB DEFAULT x'00ff'",
  'region TEXT DEFAULT NULL',
  "a TEXT DEFAULT 'x'; ALTER TABLE chain ADD COLUMN b INTEGER DEFAULT -1",
  'score REAL',
  'latency DOUBLE PRECISION; ALTER TABLE chain ADD COLUMN ratio FLOAT DEFAULT 1',
]
const ATTACKS: Attack[] = ['none', 'truncate-tail', 'delete-middle', 'reseal-tail']
describe('a column added with a DEFAULT does not switch the search off', () => {
  let n = 0
  for (const column of COLUMNS)
    for (const attack of ATTACKS) {
      const seed = 0xdef + n
      const pageSize = [1024, 4096, 512, 2048][n % 4]!
      n++
      const name = `${attack}, then ADD COLUMN ${column} (wal p${pageSize})`
      it(name, () =>
        expectMigratedAttack(name, pageSize, attack, seed, `ALTER TABLE chain ADD COLUMN ${column}`),
      )
    }
})
