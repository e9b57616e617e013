// A cut tail, then a checkpoint the writer's ordinary operations make (issue 39, round 10): a
// journal-mode switch WAL→DELETE (and back), or wal_checkpoint(TRUNCATE) and a write. The WAL that held
// the rows is gone; the file's free pages keep most of them, but with bodies past a leaf page's local
// part (pages of 512 and 1024 bytes here) the b-tree's rebalancing overwrote the first cut row's leaf
// cell while its overflow page — now the freelist's trunk — still held its three hashes. The rows cut
// after it then linked to nothing (an unplaced run, never a finding) and the file read Chain VALID.
// Now the hashes are proven with the records (src/main/recovery/orphan-hashes.ts): generated over
// operations, attacks, page sizes, key rotation and seeds, the findings lie on the attacked seqs and
// cover them; an unattacked file (and a writer's failed batch, rolled back) stays VALID with none.
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../testing/prng'
import { expectAttackAfter } from './attack-findings'
import type { Attack, History } from './claims-generator'

type Op = (db: Database.Database) => void

const OPS: Record<string, Op> = {
  'journal_mode WAL→DELETE': (db) => {
    db.pragma('journal_mode = DELETE')
  },
  'journal_mode WAL→DELETE→WAL, then a write': (db) => {
    db.pragma('journal_mode = DELETE')
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec('CREATE TABLE note (x); INSERT INTO note VALUES (1)')
  },
  'wal_checkpoint(TRUNCATE), then a write': (db) => {
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.exec('CREATE TABLE note (x); INSERT INTO note VALUES (1)')
  },
}

/** A generated chain attacked, then `op` run by SQLite on it: every recovered row a key proves is placed. */
function attackThen(name: string, op: Op, attack: Attack, history: History, pageSize: number, seed: number) {
  const rows = 18 + Math.floor(mulberry32(seed)() * 18)
  return expectAttackAfter({ name, pageSize, attack, history, rows }, seed, op, (v) => {
    if (attack !== 'none') expect(v.recovery?.unplaced ?? 0, name).toBe(0)
  })
}

describe('a cut tail stays found after the checkpoints of ordinary operations', () => {
  let n = 0
  for (const [opName, op] of Object.entries(OPS))
    for (const attack of ['none', 'truncate-tail', 'delete-middle'] as Attack[])
      for (const history of ['appends-checkpoints', 'rotation'] as History[])
        for (const pageSize of [512, 1024]) {
          const seed = 0x0a10 + n++
          const name = `${attack}, then ${opName} (${history}, p${pageSize}, seed ${seed})`
          it(name, () => attackThen(name, op, attack, history, pageSize, seed))
        }
  for (const [opName, op] of Object.entries(OPS))
    for (const pageSize of [512, 1024]) {
      const seed = 0x0b10 + n++
      const name = `a failed batch rolled back, then ${opName} (p${pageSize}, seed ${seed})`
      it(name, () => attackThen(name, op, 'none', 'rollback', pageSize, seed))
    }
})
