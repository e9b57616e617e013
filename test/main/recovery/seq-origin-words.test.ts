// What a recovered row's seq is said to come from (issue 39, round 10). A placed row's seq is given by
// its sealed links only (src/main/recovery/place.ts); its rowid is unsealed. `bijotel recover` wrote
// "(by links, rowid …)" only where `seq_origin` was "chain" and nothing where a copy's rowid agreed
// (the app: "seq from: its rowid"), as if a rowid that agrees gave the seq; and in a table rebuilt
// with seq as a column of its own, cut again after a first cut, a row's copies disagree (the old
// table's rowid is its seq, the rebuilt one's is its own number): `seq_origin` "rowid" and `rowid` 20
// at once, and the line named no rowid at all. Generated over attacks, page sizes and rebuilt tables:
// every placed row's line says "by links" and names a rowid only as unsealed, and the app's words
// (src/shared/recovery-words.ts) say the same. 12 of 12 fail with the old recovered-text.ts.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recoveredLines } from '../../../src/main/cli/commands/recovered-text'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { recoverPath } from '../../../src/main/recovery/verdict'
import { seqFromWords } from '../../../src/shared/recovery-words'
import { keysOf } from './attack-findings'
import { generateClaims, type Attack } from './claims-generator'

/** The chain table rebuilt with seq a column of its own (its rows copied: rowids 1, 2, … anew). */
function rebuild(db: Database.Database): void {
  const ddl = CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', 'rebuilt').replace(
    'seq INTEGER PRIMARY KEY AUTOINCREMENT',
    'seq INTEGER NOT NULL',
  )
  db.transaction(() => {
    db.exec(ddl)
    db.exec('INSERT INTO rebuilt SELECT * FROM chain ORDER BY seq')
    db.exec('DROP TABLE chain')
    db.exec('ALTER TABLE rebuilt RENAME TO chain')
  })()
}

async function expectWords(name: string, attack: Attack, pageSize: number, seed: number, rebuilt: boolean) {
  const g = generateClaims(
    { name, pageSize, journal: 'wal', history: 'appends-checkpoints', attack, foreign: 'none', rows: 24 },
    seed,
  )
  try {
    let evidence = g.db
    if (rebuilt) {
      evidence = join(dirname(g.db), 'rebuilt.db')
      const db = new Database(g.db)
      try {
        db.pragma('wal_autocheckpoint = 0')
        rebuild(db)
        // A second cut after the rebuild: its records carry the rebuilt table's rowids.
        db.exec('DELETE FROM chain WHERE seq > (SELECT max(seq) - 2 FROM chain)')
        copyFileSync(g.db, evidence)
        if (existsSync(`${g.db}-wal`)) copyFileSync(`${g.db}-wal`, `${evidence}-wal`)
      } finally {
        db.close()
      }
    }
    const r = await recoverPath(evidence, keysOf(g.keys))
    expect(r.summary.searched, `${name}: ${r.summary.note}`).toBe(true)
    const placed = r.rows.filter((x) => x.seq !== null)
    expect(placed.length, name).toBeGreaterThan(0)
    // The rebuilt table's rows cut after a first cut carry rowids the seq does not have.
    if (rebuilt && attack === 'delete-middle')
      expect(
        placed.some((x) => x.rowid !== undefined),
        name,
      ).toBe(true)
    for (const row of placed) {
      const [line] = recoveredLines([row], [])
      expect(line, name).toContain(`seq ${row.seq} (by links`)
      if (row.rowid !== undefined) expect(line, name).toContain(`rowid ${row.rowid}, unsealed`)
      else expect(line, name).not.toContain('rowid')
      expect(seqFromWords(row), name).toMatch(/^its sealed links \(/)
      expect(seqFromWords(row), name).not.toMatch(/^its rowid/)
    }
  } finally {
    g.cleanup()
  }
}

describe('a recovered row is said to be placed by its links, whatever its rowid', () => {
  let n = 0
  for (const attack of ['truncate-tail', 'delete-middle', 'reseal-tail'] as Attack[])
    for (const pageSize of [1024, 4096])
      for (const rebuilt of [false, true]) {
        const seed = 0x5e0 + n++
        const name = `${attack}${rebuilt ? ', rebuilt, cut again' : ''} (p${pageSize}, seed ${seed})`
        it(name, () => expectWords(name, attack, pageSize, seed, rebuilt))
      }
})
