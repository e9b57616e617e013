// A schema text crafted to switch the search off (issue 39, round 8): after the attack, the insider
// edits the chain's CREATE TABLE in sqlite_master — statements appended (SQLite's open parses only the
// first, prepare.c sqlite3InitCallback), the word SELECT or VALUES in a comment, or (in an
// auto-vacuum file, read through a plain view) a NOT NULL that a row violates; or a view or a trigger
// created beside the chain. SQLite opens every one
// of them as the table it was; the files still hold the rows before the attack (WAL frames), and the
// search must still find them and name the attack, on its seqs only. Honest chains so edited: no
// finding. Generated over crafts, attacks, auto-vacuum modes and page sizes.
import Database from 'better-sqlite3'
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { expectAttack, keysOf, NAMED } from './attack-findings'
import { generateClaims, type Attack, type ClaimsCase } from './claims-generator'

type Craft =
  | 'tail-create'
  | 'tail-select'
  | 'tail-attach'
  | 'comment-values'
  | 'comment-select'
  | 'not-null'
  | 'view'
  | 'trigger'
const CRAFTS: Craft[] = [
  'tail-create',
  'tail-select',
  'tail-attach',
  'comment-values',
  'comment-select',
  'not-null',
  'view',
  'trigger',
]

const ATTACKS: Attack[] = ['none', 'reseal-tail', 'delete-middle', 'truncate-tail']
/** The evidence `db` with its schema edited by `craft`, copied with its -wal while the editor holds it. */
function craftSchema(db: string, craft: Craft): string {
  const out = join(dirname(db), 'crafted.db')
  const c = new Database(db)
  try {
    c.pragma('wal_autocheckpoint = 0')
    c.unsafeMode(true)
    if (craft === 'not-null')
      c.prepare('UPDATE chain SET semantic_body_hash = NULL WHERE seq = (SELECT min(seq) FROM chain)').run()
    // A view or a trigger beside the chain (an operator's as much as an insider's): SQL, not an edit.
    if (craft === 'view') c.exec('CREATE VIEW recent AS SELECT seq, hmac_hash FROM chain ORDER BY seq DESC')
    if (craft === 'trigger')
      c.exec('CREATE TRIGGER keep AFTER DELETE ON chain BEGIN DELETE FROM chain WHERE seq < 0; END')
    c.pragma('writable_schema = ON')
    const edit = c.prepare("UPDATE sqlite_master SET sql = ? WHERE name = 'chain'")
    const sql = c.prepare("SELECT sql FROM sqlite_master WHERE name = 'chain'").pluck().get() as string
    const target = join(dirname(db), 'written.db').replace(/'/g, "''")
    const next: Record<Craft, string> = {
      'tail-create': `${sql}; CREATE TABLE z(a)`,
      'tail-select': `${sql};\nSELECT 1`,
      'tail-attach': `${sql} ; ATTACH '${target}' AS p; CREATE TABLE p.t(x)`,
      'comment-values': `${sql} -- no VALUES here`,
      'comment-select': sql.replace('semantic_body_hash TEXT', 'semantic_body_hash TEXT /* select */'),
      'not-null': sql.replace('semantic_body_hash TEXT', 'semantic_body_hash TEXT NOT NULL'),
      view: sql,
      trigger: sql,
    }
    edit.run(next[craft])
    c.pragma('writable_schema = OFF')
    copyFileSync(db, out)
    copyFileSync(`${db}-wal`, `${out}-wal`)
  } finally {
    c.close()
  }
  return out
}

describe('a crafted schema text does not switch the search off', () => {
  let n = 0
  for (const craft of CRAFTS)
    for (const attack of ATTACKS) {
      const seed = 0x5c4 + n
      const av = (['none', 'FULL', 'INCREMENTAL'] as const)[n % 3]!
      const pageSize = [1024, 4096, 512][Math.floor(n / 3) % 3]!
      n++
      const name = `${craft}, ${attack} (wal p${pageSize}, auto_vacuum ${av})`
      it(name, async () => {
        const c: ClaimsCase = {
          name,
          pageSize,
          journal: 'wal',
          history: av === 'none' ? 'appends-checkpoints' : 'av-moves',
          attack,
          foreign: 'none',
          rows: 30,
          ...(av === 'none' ? {} : { autoVacuum: av }),
        }
        const g = generateClaims(c, seed)
        try {
          const evidence = craftSchema(g.db, craft)
          // SQLite opens it as the table it was.
          const check = new Database(evidence, { readonly: true })
          expect(check.prepare('SELECT count(*) FROM chain').pluck().get()).toBe(g.live.size)
          check.close()
          const keys = keysOf(g.keys)
          const { verdict } = await verifyFile(evidence, keys, { recover: true, workers: 1 })
          expectAttack(verdict, attack === 'none' ? new Set() : g.attacked, NAMED[attack], name)
        } finally {
          g.cleanup()
        }
      })
    }
})
