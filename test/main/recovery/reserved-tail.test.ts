// Reserved bytes (file format §1.3.4, header offset 20) raised after the rows were written. SQLite
// reads a cell's local payload up to the end of its page (btree.c fetchPayload: aDataEnd = aData +
// pageSize); the usable size (page size less the reserved bytes) only splits a payload between its
// page and its overflow chain (§1.6) and bounds a spilling cell's local part (accessPayload). The
// first rows written to a page sit at its end: with the reserved bytes raised, SQLite still reads
// them, while recovery's carving stopped every record, free region and whole page at the usable
// size — an attacker who cut the chain's tail and then raised the byte hid the cut rows from the
// search (VALID, or 'truncated' missing), and round 10's differential counted 35–45 live records
// the carver missed (seeds 910006/910007). Generated over page sizes, journal modes and reserved
// values, the cut taken from the first row of the last leaf (the row at that page's end):
// - SQLite reads the attacked file (else the case is not counted);
// - unattacked: VALID, no finding;
// - attacked: every finding lies on the cut; in WAL mode (the superseded page images are all kept)
//   the cut is covered, and the verdict is not VALID;
// - the live-page comparison: recovery's carving reads every live record SQLite reads.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { cellRowid } from '../../../src/main/chain/sqlite/page'
import { GENESIS, Rng } from '../reliability/chainkit'
import { compareLiveCarving } from '../testing/live-carve'
import { caseFolder, CHAIN_DDL, insert, openWriter, version } from '../testing/sealed-writer'
import { framePage, rechecksumWal, walLayout } from '../testing/wal-edit'

const CASES = 16

/** The smallest rowid on the chain table's last leaf: its first cell, written at the page's end. */
function lastLeafFirstRowid(db: Database.Database, path: string, pageSize: number): bigint {
  const pageno = Number(
    (
      db
        .prepare("SELECT pageno FROM dbstat WHERE name = 'chain' AND pagetype = 'leaf' ORDER BY path DESC")
        .get() as { pageno: bigint }
    ).pageno,
  )
  const file = readFileSync(path)
  const page = file.subarray((pageno - 1) * pageSize, pageno * pageSize)
  const h = pageno === 1 ? 100 : 0
  return cellRowid(page, page.readUInt16BE(h + 8))!
}

/** Raises the reserved-bytes value in the file's page 1 and in every page-1 image of its -wal. */
function raiseReserved(path: string, reserved: number): void {
  const db = readFileSync(path)
  db[20] = reserved
  writeFileSync(path, db)
  if (!existsSync(`${path}-wal`)) return
  const wal = readFileSync(`${path}-wal`)
  const l = walLayout(wal)
  if (!l) return
  for (const f of l.frames) if (f.page === 1) framePage(wal, l, f)[20] = reserved
  rechecksumWal(wal)
  writeFileSync(`${path}-wal`, wal)
}

/** Rows SQLite reads from a copy of the folder (null: SQLite calls it corrupt). */
function sqliteCount(path: string, scratch: string): number | null {
  const copy = join(scratch, 'oracle.db')
  copyFileSync(path, copy)
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
  const db = new Database(copy)
  try {
    return (db.prepare('SELECT * FROM chain NOT INDEXED').raw(true).all() as unknown[]).length
  } catch {
    return null
  } finally {
    db.close()
  }
}

describe('reserved bytes raised after the rows were written: recovery reads pages to their end', () => {
  let counted = 0
  let attackedWal = 0
  for (let k = 0; k < CASES; k++) {
    const rng = new Rng(911_100 + k)
    const pageSize = rng.pick([1024, 2048, 4096])
    const journal = k % 2 === 0 ? 'wal' : 'delete'
    const reserved = rng.pick([4, 8, 16, 32, 64])
    const attack = k % 4 !== 3
    const name = `case ${k}: p${pageSize} ${journal} reserved ${reserved}${attack ? ', tail cut' : ''}`
    it(
      name,
      async () => {
        const f = caseFolder('bijotel-reserved-tail-')
        try {
          const db = openWriter(f.work, { pageSize, journal })
          db.exec(CHAIN_DDL)
          const key = rng.bytes(32)
          let prev = GENESIS
          const rows = 30 + rng.int(0, 30)
          for (let s = 1n; s <= BigInt(rows); s++) {
            // Records stay local at every usable size tried (fewer than U − 35 bytes, §1.6).
            const v = version(rng, key, s, prev, 20 + rng.int(0, 120), 'row')
            insert(db, v)
            prev = v.hmac
          }
          if (journal === 'wal') db.pragma('wal_checkpoint(TRUNCATE)')
          const from = lastLeafFirstRowid(db, f.work, pageSize)
          if (attack) db.prepare('DELETE FROM chain WHERE seq >= ?').run(from)
          const evidence = join(dirname(f.evidence), 'chain.db')
          copyFileSync(f.work, evidence)
          if (existsSync(`${f.work}-wal`)) copyFileSync(`${f.work}-wal`, `${evidence}-wal`)
          db.close()
          raiseReserved(evidence, reserved)
          const seen = sqliteCount(evidence, f.dir)
          if (seen === null) return
          counted++
          expect(seen, name).toBe(attack ? Number(from) - 1 : rows)
          const live = compareLiveCarving(evidence, f.dir)
          if (live.kind === 'compared') {
            expect(live.misses, name).toEqual([])
            expect([...live.misreads, ...live.listing], name).toEqual([])
          }
          const keys = [{ index: 0, encoding: 'hex' as const, bytes: key }]
          const { verdict: v } = await verifyFile(evidence, keys, { recover: true, workers: 1 })
          expect(v.recovery?.searched, `${name}: ${v.recovery?.note}`).toBe(true)
          const said = v.findings.map((x) => `${x.kind} ${x.from_seq}-${x.to_seq}`)
          if (!attack) {
            expect(said, name).toEqual([])
            expect(v.valid, name).toBe(true)
            return
          }
          const covered = new Set<number>()
          for (const x of v.findings)
            for (let s = x.from_seq; s <= x.to_seq; s++) {
              expect(s >= Number(from) && s <= rows, `${name}: ${said.join('; ')}`).toBe(true)
              if (x.kind === 'truncated') covered.add(s)
            }
          if (journal === 'wal') {
            attackedWal++
            for (let s = Number(from); s <= rows; s++)
              expect(covered.has(s), `${name}: seq ${s} not found; ${said.join('; ')}`).toBe(true)
            expect(v.valid, name).toBe(false)
          }
        } finally {
          f.cleanup()
        }
      },
      60_000,
    )
  }
  it('covered ground: most cases read by SQLite, several WAL cuts', () => {
    expect(counted).toBeGreaterThan(CASES / 2)
    expect(attackedWal).toBeGreaterThan(2)
  })
})
