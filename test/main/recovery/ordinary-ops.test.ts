// Ordinary operations after an attack (issue 39, round 10), with the writer's checkpoint held so the
// WAL keeps the rows before the attack: ALTER TABLE … RENAME (the table away and back, a column, a
// required column), user_version and schema_version bumps, a trigger and a view on the table, a second
// table with the same columns holding copies of the live rows (CREATE TABLE AS, and the chain's own
// DDL), secure_delete switched on afterwards, a WAL restart whose new frames lie before the old ones,
// VACUUM in WAL mode, and VACUUM into auto_vacuum FULL — over key rotation too. Each: the search runs,
// its findings lie on the attacked seqs and cover them, and an unattacked file stays VALID with none.
// The table renamed away is refused in one line (no `chain` table), never read VALID. These passed on
// the code before this round: kept as generators.
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { expectAttackAfter, keysOf } from './attack-findings'
import { generateClaims, type Attack, type History } from './claims-generator'

type Op = (db: Database.Database) => void

const OPS: Record<string, Op> = {
  'RENAME the table away and back': (db) =>
    db.exec('ALTER TABLE chain RENAME TO chain_v2; ALTER TABLE chain_v2 RENAME TO chain'),
  'RENAME COLUMN span_kind': (db) => db.exec('ALTER TABLE chain RENAME COLUMN span_kind TO kind_of_span'),
  'RENAME COLUMN span_name': (db) => db.exec('ALTER TABLE chain RENAME COLUMN span_name TO name_of_span'),
  'user_version bumped': (db) => db.pragma('user_version = 42'),
  'schema_version bumped': (db) => {
    const v = db.pragma('schema_version', { simple: true }) as number
    db.pragma(`schema_version = ${v + 5}`)
  },
  'a trigger and a view': (db) =>
    db.exec(
      'CREATE TRIGGER t_chain AFTER INSERT ON chain BEGIN SELECT 1; END; CREATE VIEW v_chain AS SELECT seq, hmac_hash FROM chain',
    ),
  'a decoy table (CREATE TABLE AS)': (db) => db.exec('CREATE TABLE chain_copy AS SELECT * FROM chain'),
  "a decoy table (the chain's DDL)": (db) => {
    const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'chain'").get() as { sql: string }
    db.exec(sql.replace('TABLE chain', 'TABLE chain_decoy'))
    db.exec('INSERT INTO chain_decoy SELECT * FROM chain')
  },
  'secure_delete on, then a write': (db) => {
    db.pragma('secure_delete = ON')
    db.exec('UPDATE chain SET span_kind = span_kind WHERE seq = (SELECT max(seq) FROM chain)')
  },
  'WAL restarted, new frames before the old': (db) => {
    db.pragma('wal_checkpoint(RESTART)')
    db.exec('CREATE TABLE note (x); INSERT INTO note VALUES (1)')
  },
  'VACUUM in WAL mode': (db) => db.exec('VACUUM'),
  'VACUUM into auto_vacuum FULL': (db) => {
    db.pragma('auto_vacuum = FULL')
    db.exec('VACUUM')
  },
}

function attackThen(name: string, op: Op, attack: Attack, history: History, pageSize: number, seed: number) {
  return expectAttackAfter({ name, pageSize, attack, history }, seed, op)
}

describe('ordinary operations after an attack leave recovery searching', () => {
  let n = 0
  for (const [opName, op] of Object.entries(OPS))
    for (const attack of ['none', 'truncate-tail', 'delete-middle', 'reseal-tail'] as Attack[]) {
      // A WAL restart's new frames overwrite the first frames of the generation the reseal's
      // originals were written in: they may be gone (not covered here).
      if (attack === 'reseal-tail' && opName.startsWith('WAL restarted')) continue
      const seed = 0x0d10 + n
      const history: History = n % 2 === 0 ? 'appends-checkpoints' : 'rotation'
      const pageSize = [1024, 4096, 512, 2048][n % 4]!
      n++
      const name = `${attack}, then ${opName} (${history}, p${pageSize}, seed ${seed})`
      it(name, () => attackThen(name, op, attack, history, pageSize, seed))
    }

  it('the table renamed away: refused in one line, never VALID', async () => {
    const g = generateClaims(
      {
        name: 'renamed',
        pageSize: 1024,
        journal: 'wal',
        history: 'rotation',
        attack: 'truncate-tail',
        foreign: 'none',
        rows: 20,
      },
      0x0d0f,
    )
    try {
      const db = new Database(g.db)
      try {
        db.exec('ALTER TABLE chain RENAME TO chain_v2')
      } finally {
        db.close()
      }
      await expect(verifyFile(g.db, keysOf(g.keys), { recover: true, workers: 1 })).rejects.toMatchObject({
        code: 'no_chain_table',
      })
    } finally {
      g.cleanup()
    }
  })
})
