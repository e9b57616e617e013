// A table rebuilt so that seq is no longer the rowid alias (issue 39, round 9): `seq INTEGER NOT
// NULL`, `seq INT PRIMARY KEY` (INT is not INTEGER: a column of its own with an index), `seq INTEGER
// PRIMARY KEY DESC`, `seq INTEGER UNIQUE`, or WITHOUT ROWID — created, the rows copied, the old table dropped and the
// new one renamed. SQLite reads the same rows, but the direct reader declines the file and recovery
// was 'not searched', so an insider who rebuilt the table after deleting rows, cutting the tail or
// resealing read VALID with no recovery finding while the files still held the rows before the
// attack. Generated over declarations, attacks (before the rebuild, in WAL frames and free pages;
// and after it, on records that hold seq's value), journal modes and page sizes: the search runs, and
// its findings lie on the attack's seqs and cover them; honest rebuilds make none. A seq that is not
// a distinct integer leaves the search off, said in one line.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng } from '../reliability/chainkit'
import { caseFolder, CHAIN_DDL, insert, openWriter, version } from '../testing/sealed-writer'
import { expectAttack, keysOf, NAMED } from './attack-findings'
import { generateClaims, type Attack } from './claims-generator'

const DECLS = [
  'INTEGER NOT NULL',
  'INT PRIMARY KEY',
  'INTEGER PRIMARY KEY DESC',
  'INTEGER UNIQUE',
  'NUMERIC',
  'INTEGER PRIMARY KEY | WITHOUT ROWID',
]

/**
 * The chain table of `db` rebuilt with `seq ${decl}` (the rows copied as they are); what follows a
 * `|` in `decl` is the table's options (WITHOUT ROWID).
 */
function rebuild(db: Database.Database, spec: string): void {
  const [decl, options = ''] = spec.split('|')
  const ddl =
    CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'rebuilt').replace(
      'seq INTEGER PRIMARY KEY AUTOINCREMENT',
      `seq ${decl!.trim()}`,
    ) + options
  db.transaction(() => {
    db.exec(ddl)
    db.exec('INSERT INTO rebuilt SELECT * FROM chain')
    db.exec('DROP TABLE chain')
    db.exec('ALTER TABLE rebuilt RENAME TO chain')
  })()
}

/** The files of `path` copied beside it while `db` (open on it) still holds them: `evidence.db`. */
function take(path: string): string {
  const out = join(dirname(path), 'evidence.db')
  copyFileSync(path, out)
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${out}-wal`)
  return out
}

describe('a table rebuilt with seq not the rowid is searched all the same', () => {
  const ATTACKS: Attack[] = ['none', 'truncate-tail', 'delete-middle', 'reseal-tail']
  let n = 0
  for (const decl of DECLS)
    for (const attack of ATTACKS) {
      const seed = 0x5e9 + n
      const pageSize = [1024, 4096, 512, 2048][n % 4]!
      n++
      const name = `attack then rebuild: ${attack}, seq ${decl} (wal p${pageSize})`
      it(name, async () => {
        const g = generateClaims(
          {
            name,
            pageSize,
            journal: 'wal',
            history: 'appends-checkpoints',
            attack,
            foreign: 'none',
            rows: 30,
          },
          seed,
        )
        try {
          const db = new Database(g.db)
          let evidence: string
          try {
            db.pragma('wal_autocheckpoint = 0')
            rebuild(db, decl)
            evidence = take(g.db)
          } finally {
            db.close()
          }
          const { verdict } = await verifyFile(evidence, keysOf(g.keys), { recover: true, workers: 1 })
          expectAttack(verdict, g.attacked, NAMED[attack], name)
        } finally {
          g.cleanup()
        }
      })
    }

  // Rows deleted from the rebuilt table: their records hold seq's value (not NULL), in WAL frames or
  // in the freeblocks of a rollback-journal file.
  for (const [i, journal] of (['wal', 'delete', 'wal', 'delete'] as const).entries())
    for (const decl of DECLS) {
      const pageSize = [1024, 4096, 2048, 512][i]!
      const name = `rebuild then delete: seq ${decl} (${journal} p${pageSize})`
      it(name, async () => {
        const rng = new Rng(0x5ea + i * 7 + decl.length)
        const key = rng.bytes(32)
        const f = caseFolder('bijotel-seq-stored-')
        try {
          const db = openWriter(f.work, { pageSize, journal })
          let evidence: string
          try {
            db.exec(CHAIN_DDL)
            let prev = GENESIS
            for (let s = 1n; s <= 40n; s++) {
              const v = version(rng, key, s, prev, 40 + Math.floor(rng.next() * 300), 'row')
              insert(db, v)
              prev = v.hmac
            }
            rebuild(db, decl)
            const from = 10n + BigInt(Math.floor(rng.next() * 20))
            const to = from + BigInt(Math.floor(rng.next() * 3))
            db.prepare('DELETE FROM chain WHERE seq BETWEEN ? AND ?').run(from, to)
            const attacked = new Set<bigint>()
            for (let s = from; s <= to; s++) attacked.add(s)
            evidence = take(f.work)
            db.close()
            const { verdict } = await verifyFile(evidence, keysOf([key]), { recover: true, workers: 1 })
            expectAttack(verdict, attacked, 'deleted', name)
          } finally {
            if (db.open) db.close()
          }
        } finally {
          f.cleanup()
        }
      })
    }

  // seq values SQLite reads that are not distinct integers: a duplicate cannot be the view's rowid,
  // so the search stays off and says why in one line (the verdict is verify's own); a seq that is
  // no integer is refused by the reader in one line.
  for (const [i, craft] of (['duplicate', 'text', 'real'] as const).entries())
    it(`a seq that is not a distinct integer (${craft}): not searched, said in one line`, async () => {
      const rng = new Rng(0x5eb + i)
      const key = rng.bytes(32)
      const f = caseFolder('bijotel-seq-stored-')
      try {
        const db = openWriter(f.work, { pageSize: 4096, journal: 'delete' })
        try {
          db.exec(CHAIN_DDL)
          let prev = GENESIS
          for (let s = 1n; s <= 12n; s++) {
            const v = version(rng, key, s, prev, 100, 'row')
            insert(db, v)
            prev = v.hmac
          }
          rebuild(db, 'NOT NULL')
          const set = { duplicate: '5', text: "'five'", real: '5.5' }[craft]
          db.exec(`UPDATE chain SET seq = ${set} WHERE seq = 6`)
        } finally {
          db.close()
        }
        const run = verifyFile(f.work, keysOf([key]), { recover: true, workers: 1 })
        if (craft !== 'duplicate') {
          // A seq SQLite reads as no integer: the reader refuses the file, in one line.
          await expect(run).rejects.toThrow(/^not a BIJOTEL chain: [^\n]*seq that is not an integer/)
          return
        }
        const { verdict } = await run
        expect(verdict.recovery?.searched).toBe(false)
        expect(verdict.recovery?.note ?? '').not.toContain('\n')
        expect(verdict.findings.some((x) => ['truncated', 'deleted', 'rewritten'].includes(x.kind))).toBe(
          false,
        )
      } finally {
        f.cleanup()
      }
    })
})
