// Chains written in a UTF-16 database (file format §1.3.12, header offset 56: 2 UTF-16le, 3
// UTF-16be). SQLite reads their text as UTF-16 and hands it over as UTF-8; the direct reader reads
// UTF-8 only and declines (then the verdict is SQLite's, through the copy path), and recovery's
// carving matches records by their UTF-8 serial types (a 64-character hash is TEXT of 64 bytes, in
// UTF-16 of 128: ./layout.ts), so it would find nothing in such a file and say nothing about a cut
// tail. The refusal must stay a refusal: never 'searched' over a UTF-16 file, never a UTF-16 text
// read as UTF-8 (no row count or verdict other than SQLite's). Generated over both byte orders,
// journal modes, page sizes, and an untouched or cut tail; the encoding field is also flipped on
// UTF-8 files (SQLite then decodes their bytes as UTF-16): the same holds.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { AuditError } from '../../../src/main/base/errors'
import { openDirect } from '../../../src/main/chain/direct/open'
import { parseSecrets } from '../../../src/main/chain/keys'
import { Unsupported } from '../../../src/main/chain/sqlite/decline'
import { Rng } from '../reliability/chainkit'
import { KEY_HEX, SMALL, writeChainFolder } from '../testing/exact-chains'

const root = mkdtempSync(join(tmpdir(), 'bijotel-utf16-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

/** What SQLite reads from a copy: its encoding and its rows' seqs and hashes, or null (an error). */
function sqliteRows(path: string): { encoding: string; rows: unknown[][] } | null {
  const dir = mkdtempSync(join(root, 'oracle-'))
  try {
    copyFileSync(path, join(dir, 'chain.db'))
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, join(dir, 'chain.db-wal'))
    const db = new Database(join(dir, 'chain.db'))
    try {
      const encoding = db.pragma('encoding', { simple: true }) as string
      const rows = db
        .prepare('SELECT seq, canonical_hash, prev_hash, hmac_hash FROM chain NOT INDEXED ORDER BY seq')
        .raw(true)
        .all() as unknown[][]
      return { encoding, rows }
    } finally {
      db.close()
    }
  } catch {
    return null
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('UTF-16 chains: declined by the direct reader, refused by recovery, read by SQLite', () => {
  for (let k = 0; k < 12; k++) {
    const rng = new Rng(911_200 + k)
    const encoding = rng.pick(['UTF-16le', 'UTF-16be', 'UTF-8'] as const)
    const wal = k % 2 === 0
    const pageSize = rng.pick([1024, 4096])
    const cut = k % 3 !== 0
    // On a UTF-8 file the header's field is flipped to a UTF-16 value after the rows are written.
    const flip = encoding === 'UTF-8' ? rng.pick([2, 3]) : 0
    const name = `case ${k}: ${encoding}${flip ? ` flipped to ${flip}` : ''} ${wal ? 'wal' : 'delete'} p${pageSize}${cut ? ', tail cut' : ''}`
    it(
      name,
      async () => {
        const dir = join(root, `c${k}`)
        const rows = 30 + rng.int(0, 20)
        const path = writeChainFolder(dir, {
          ...SMALL,
          rows,
          pageSize,
          wal,
          walRows: wal ? 10 : 0,
          walCommits: 2,
          bodyBytes: rng.int(0, 600),
          encoding,
        })
        if (cut) {
          // A cut tail in a WAL commit (WAL) or in the file (rollback journal): the rows stay in the
          // frames or the free space, where only a search would find them.
          const db = new Database(path)
          const wal0 = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : null
          db.pragma('wal_autocheckpoint = 0')
          db.prepare('DELETE FROM chain WHERE seq > ?').run(rows - 1 - rng.int(0, 5))
          const walNow = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : wal0
          const file = readFileSync(path)
          db.close()
          // Closing checkpoints the -wal away: the folder as the writer left it mid-run.
          writeFileSync(path, file)
          if (walNow) writeFileSync(`${path}-wal`, walNow)
        }
        if (flip) {
          const file = readFileSync(path)
          file.writeUInt32BE(flip, 56)
          writeFileSync(path, file)
        }
        const oracle = sqliteRows(path)
        // SQLite takes page 1 from the -wal when it has a frame there (a flipped file byte is then
        // not what it reads): the encoding is the one SQLite reports.
        if (oracle?.encoding === 'UTF-8') {
          const { verdict: v } = await verifyFile(path, keys, { recover: true, workers: 1 })
          if (v.valid) expect(v.entries, name).toBe(oracle.rows.length)
          return
        }
        expect(() => {
          try {
            openDirect(path).close()
          } catch (e) {
            if (e instanceof Unsupported) throw e
          }
        }, `${name}: the direct reader declines`).toThrow(Unsupported)
        let v
        try {
          ;({ verdict: v } = await verifyFile(path, keys, { recover: true, workers: 1 }))
        } catch (e) {
          // SQLite itself calls the file corrupt: one line, and no verdict.
          expect(oracle, `${name}: ${(e as Error).message}`).toBeNull()
          expect(e, name).toBeInstanceOf(AuditError)
          expect((e as Error).message, name).not.toContain('\n')
          return
        }
        // Never searched: a UTF-8 layout finds nothing in UTF-16 records, and silence would read as
        // 'nothing was cut'.
        expect(v.recovery?.searched ?? false, `${name}: ${v.recovery?.note}`).toBe(false)
        if (oracle === null) return
        if (v.valid) expect(v.entries, name).toBe(oracle.rows.length)
        if (!flip) {
          expect(oracle.encoding, name).toBe(encoding)
          expect(v.valid, name).toBe(true)
        }
      },
      60_000,
    )
  }
})
