// sqlite_master that grew past page 1 and shrank again (an operator's side tables created, then
// dropped) can leave page 1 an interior page with no cell and one right child: btree.c balance_nonroot
// copies a root's only child into it only when the child fits below page 1's 100-byte header, and
// moveToRoot reads such a page 1 (its right child) where any other empty interior page is corrupt.
// The direct reader declined the file ('page 1 is an empty child page'), and recovery with it: a cut
// tail or a deleted block whose rows the files still held read VALID with recovery 'not searched'.
// Generated over page sizes, journal modes and drop orders (the state reached through SQLite alone,
// checked on page 1's bytes), then attacked: the search runs, its findings lie on the attack's seqs
// (and, in WAL mode, cover them); unattacked, no finding.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { GENESIS, Rng } from '../reliability/chainkit'
import { caseFolder, CHAIN_DDL, insert, openWriter, version } from '../testing/sealed-writer'

type Attack = 'none' | 'truncate-tail' | 'delete-middle'
const NAMED: Record<Attack, string> = { none: '', 'truncate-tail': 'truncated', 'delete-middle': 'deleted' }

/** Page 1 (in the file: checkpointed) is an interior table page with no cell. */
function pageOneEmptyInterior(path: string): boolean {
  const b = readFileSync(path)
  return b[100] === 0x05 && b.readUInt16BE(103) === 0
}

/**
 * Side tables created until sqlite_master splits, then dropped one by one in an order `rng` picks
 * (newest first, oldest first, or at random) until page 1 is an empty interior page; true when
 * reached. In rollback-journal mode, so page 1 is the file's own.
 */
function shrinkSchema(db: Database.Database, path: string, rng: Rng, pageSize: number): boolean {
  const names: string[] = []
  const pad = 'x'.repeat(Math.floor(rng.next() * 12))
  while (!(readFileSync(path)[100] === 0x05) || names.length < (3 * pageSize) / 60) {
    const name = `side_${names.length}`
    db.exec(`CREATE TABLE ${name} (a${pad} TEXT, b INTEGER)`)
    names.push(name)
  }
  const order = Math.floor(rng.next() * 3)
  const drops =
    order === 0 ? [...names].reverse() : order === 1 ? [...names] : [...names].sort(() => rng.next() - 0.5)
  for (const name of drops) {
    db.exec(`DROP TABLE ${name}`)
    if (pageOneEmptyInterior(path)) return true
  }
  return false
}

describe('page 1 an interior page with no cell: the files are searched', () => {
  let n = 0
  for (const pageSize of [1024, 2048])
    for (const journal of ['delete', 'wal'] as const)
      for (const attack of ['none', 'truncate-tail', 'delete-middle'] as Attack[]) {
        const seed = 0x9a1 + n++
        const name = `${attack} (${journal} p${pageSize})`
        it(
          name,
          async () => {
            const f = caseFolder('bijotel-page-one-')
            try {
              // Tries seeds in turn until a drop order reaches the state (SQLite decides, not the test).
              let reached = false
              let rng = new Rng(seed)
              let db: Database.Database | null = null
              for (let attempt = 0; attempt < 8 && !reached; attempt++) {
                for (const s of ['', '-journal', '-wal'])
                  if (existsSync(f.work + s)) copyFileSync('/dev/null', f.work + s)
                db?.close()
                rng = new Rng(seed * 31 + attempt)
                db = openWriter(f.work, { pageSize, journal: 'delete' })
                db.exec(CHAIN_DDL)
                reached = shrinkSchema(db, f.work, rng, pageSize)
              }
              expect(reached, 'the drop orders tried reach an empty interior page 1').toBe(true)
              const key = rng.bytes(32)
              if (journal === 'wal') db!.pragma('journal_mode = WAL')
              let prev = GENESIS
              for (let s = 1n; s <= 40n; s++) {
                const v = version(rng, key, s, prev, 40 + Math.floor(rng.next() * 300), 'row')
                db!.transaction(() => insert(db!, v))()
                prev = v.hmac
              }
              const attacked = new Set<bigint>()
              const from = attack === 'truncate-tail' ? 35n : 15n + BigInt(Math.floor(rng.next() * 10))
              const to = attack === 'truncate-tail' ? 40n : from + BigInt(Math.floor(rng.next() * 3))
              if (attack !== 'none') {
                db!.prepare('DELETE FROM chain WHERE seq BETWEEN ? AND ?').run(from, to)
                for (let s = from; s <= to; s++) attacked.add(s)
              }
              const evidence = join(dirname(f.evidence), 'chain.db')
              copyFileSync(f.work, evidence)
              if (existsSync(`${f.work}-wal`)) copyFileSync(`${f.work}-wal`, `${evidence}-wal`)
              db!.close()
              const keys = [{ index: 0, encoding: 'hex' as const, bytes: key }]
              const { verdict: v } = await verifyFile(evidence, keys, { recover: true, workers: 1 })
              expect(v.recovery?.searched, `${name}: ${v.recovery?.note}`).toBe(true)
              const said = v.findings.map((x) => `${x.kind} ${x.from_seq}-${x.to_seq}`)
              if (attack === 'none') {
                expect(said, name).toEqual([])
                expect(v.valid).toBe(true)
                return
              }
              const covered = new Set<number>()
              for (const x of v.findings)
                if (x.kind === 'truncated' || x.kind === 'deleted' || x.kind === 'rewritten')
                  for (let s = x.from_seq; s <= x.to_seq; s++) {
                    expect(attacked.has(BigInt(s)), `${name}: ${x.kind} covers ${s}`).toBe(true)
                    if (x.kind === NAMED[attack]) covered.add(s)
                  }
              // The WAL keeps every frame the attack superseded; in a rollback-journal file the rows
              // stay only where no later write (a page's defragmentation, a freelist trunk) reached
              // them, so there the findings must lie on the attack, not cover it.
              if (journal === 'wal') {
                for (const s of attacked)
                  expect(covered.has(Number(s)), `${name}: ${said.join('; ')}`).toBe(true)
                expect(v.valid).toBe(false)
              }
            } finally {
              f.cleanup()
            }
          },
          180_000,
        )
      }
})
