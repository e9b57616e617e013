// Test helper: a chain in WAL mode whose leaves are scattered through the file, for the tests that
// hold the addon's page walks to the TypeScript reader and to SQLite.
import Database from 'better-sqlite3'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { BASE_TS, bodyFor, SEC } from '../integrity/testchain'

let written = 0

/**
 * A chain in WAL mode whose leaves are scattered (another table's pages between them), checkpointed,
 * then changed in the WAL: timestamps rewritten on some leaves and rows appended, so the newest
 * image of those pages is in the WAL and the file still holds the old one. Copied into `dir`, -wal
 * included, while the writer is still open (closing it would checkpoint).
 */
export function scatteredWalChain(dir: string): string {
  const src = join(dir, `writer-${++written}.db`)
  const db = new Database(src)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec(
      'CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER NOT NULL, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT)',
    )
    db.exec('CREATE TABLE filler (x BLOB)')
    const row = db.prepare('INSERT INTO chain VALUES (?, ?, ?, ?, ?, ?)')
    const fill = db.prepare('INSERT INTO filler VALUES (randomblob(3000))')
    let seq = 0
    const add = (n: number): void => {
      for (let i = 0; i < n; i++, seq++)
        row.run(seq + 1, BASE_TS + BigInt(seq) * SEC, Buffer.from(bodyFor(`p${seq % 3}`)), `h${seq}`, '', '')
    }
    for (let batch = 0; batch < 40; batch++) {
      db.transaction(() => {
        add(25 + batch)
        for (let f = 0; f < 1 + (batch % 4); f++) fill.run()
      })()
    }
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.exec(`UPDATE chain SET timestamp_ns = timestamp_ns + 7 WHERE seq % 97 = 0`)
    db.transaction(() => add(300))()
    const copy = join(dir, `scattered-${written}.db`)
    copyFileSync(src, copy)
    copyFileSync(`${src}-wal`, `${copy}-wal`)
    return copy
  } finally {
    db.close()
  }
}
