// Named regressions of issue 23: crafted folders on which the direct reader once read other rows
// than SQLite (and `verify` said VALID over a tampered chain). Each is built small, here, by SQLite;
// SQLite on a copy opened as the writer would is the oracle; the direct reader must read the same
// rows or decline, and the verdict must be SQLite's.
import Database from 'better-sqlite3'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { takeSnapshot } from '../../../../src/main/chain/snapshot'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { appendRows, CHAIN_SCHEMA, GENESIS, seal, sha256 } from '../../reliability/chainkit'
import { hotJournalFolder, KEY, KEY_HEX, rowsOf, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { directReading, sqliteReading, withoutNames } from '../../testing/readings'
import { framePage, rechecksumWal, walLayout } from '../../testing/wal-edit'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-exact-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

let honest7 = ''
let n = 0
const folder = (): string => join(scratch, `case-${++n}`)

/** The folder's bytes, to show that reading it changed nothing. */
function bytesOf(paths: string[]): string[] {
  return paths.map((p) => sha256(readFileSync(p)))
}

describe('exact, or decline: named regressions', () => {
  it('hot journal: SQLite rolls it back, so the verdict is about the rolled-back rows', async () => {
    const path = hotJournalFolder(
      folder(),
      SMALL,
      // Fixes row 7's seal inside the transaction: the file alone now looks intact.
      (db) => db.prepare('UPDATE chain SET hmac_hash = ? WHERE seq = 7').run(honest7),
      // The committed chain, which the journal restores: row 7's seal tampered.
      (db) => {
        honest7 = db.prepare('SELECT hmac_hash FROM chain WHERE seq = 7').pluck().get() as string
        db.prepare('UPDATE chain SET hmac_hash = ? WHERE seq = 7').run('f'.repeat(64))
      },
    )
    // The precondition: the file without its journal reads as an intact chain.
    const alone = join(folder(), 'chain.db')
    mkdirSync(join(alone, '..'))
    copyFileSync(path, alone)
    const withoutJournal = sqliteReading(alone, scratch)
    expect(withoutJournal.kind).toBe('rows')
    const before = bytesOf([path, `${path}-journal`])
    expect(() => openDirect(path)).toThrow(Unsupported)
    const { verdict, reader } = await verifyFile(path, keys)
    expect(reader).toBe('sqlite-copy')
    expect(verdict.valid).toBe(false)
    expect(verdict.first_bad_seq).toBe(7)
    expect(verdict.entries).toBe(SMALL.rows)
    const snap = await takeSnapshot(path, { tempRoot: scratch })
    try {
      expect(snap.evidence.side_files).toEqual([
        expect.objectContaining({ path: `${path}-journal`, applied: true }),
      ])
    } finally {
      snap.dispose()
    }
    expect(bytesOf([path, `${path}-journal`])).toEqual(before)
    const oracle = sqliteReading(path, scratch)
    expect(oracle.kind === 'rows' && oracle.rows.length).toBe(SMALL.rows)
  })

  it('symlinked chain.db: the -wal beside the target is read, not one beside the link', async () => {
    // One checkpointed base, then two WALs written on copies of it: the target's, with row 35's
    // seal tampered, and an honest decoy put beside the link.
    const base = join(folder(), 'base')
    mkdirSync(base, { recursive: true })
    const src = join(base, 'chain.db')
    const db = new Database(src)
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec(CHAIN_SCHEMA)
    const head = appendRows(db, KEY, rowsOf(30, 0), GENESIS)
    db.close()
    const walOf = (tamper: boolean): { db: Buffer; wal: Buffer } => {
      const d = mkdtempSync(join(scratch, 'w-'))
      copyFileSync(src, join(d, 'chain.db'))
      const w = new Database(join(d, 'chain.db'))
      w.pragma('wal_autocheckpoint = 0')
      const rows = rowsOf(10, 0, 30)
      if (tamper) rows[4]!.hmac_hash = 'e'.repeat(64)
      appendRows(w, KEY, rows, head)
      const out = { db: readFileSync(join(d, 'chain.db')), wal: readFileSync(join(d, 'chain.db-wal')) }
      w.close()
      return out
    }
    const tampered = walOf(true)
    const honest = walOf(false)
    expect(tampered.db.equals(honest.db)).toBe(true)
    const target = join(folder(), 'target')
    const linked = join(folder(), 'linked')
    mkdirSync(target, { recursive: true })
    mkdirSync(linked, { recursive: true })
    writeFileSync(join(target, 'chain.db'), tampered.db)
    writeFileSync(join(target, 'chain.db-wal'), tampered.wal)
    symlinkSync(join(target, 'chain.db'), join(linked, 'chain.db'))
    writeFileSync(join(linked, 'chain.db-wal'), honest.wal)
    const path = join(linked, 'chain.db')
    const direct = directReading(path)
    const oracle = sqliteReading(path, scratch)
    expect(oracle.kind).toBe('rows')
    expect(direct).toEqual(withoutNames(oracle))
    const { verdict, reader } = await verifyFile(path, keys)
    expect(reader).toBe('direct')
    expect(verdict).toMatchObject({ valid: false, first_bad_seq: 35, entries: 40 })
    const viaCopy = await verifyFile(path, keys, { env: { BIJOTEL_READER: 'sqlite' } })
    expect(viaCopy.verdict).toEqual(verdict)
  })

  it('reserved bytes changed on page 1 in the WAL: read as SQLite reads them, or declined', async () => {
    for (const reserved of [8, 32]) {
      const path = writeChainFolder(folder(), {
        ...SMALL,
        rows: 60,
        wal: true,
        walRows: 20,
        walCommits: 2,
        bodyBytes: 900,
      })
      const wal = readFileSync(`${path}-wal`)
      const layout = walLayout(wal)!
      const ones = layout.frames.filter((f) => f.page === 1)
      expect(ones.length).toBeGreaterThan(0)
      framePage(wal, layout, ones[ones.length - 1]!)[20] = reserved
      rechecksumWal(wal)
      writeFileSync(`${path}-wal`, wal)
      const direct = directReading(path)
      const oracle = sqliteReading(path, scratch)
      if (direct.kind === 'rows') expect(direct).toEqual(withoutNames(oracle))
      else expect(direct.kind).toBe('declined')
      // The file's own header still says 0 reserved bytes: what the reader once used.
      expect(readFileSync(path)[20]).toBe(0)
      const outcome = await verifyFile(path, keys).then(
        (r) => r.verdict,
        (e: Error) => e,
      )
      if (!(outcome instanceof Error)) expect(outcome.valid && oracle.kind !== 'rows').toBe(false)
      else expect(oracle.kind).toBe('error')
    }
  })

  it('a -wal beside a file whose header says rollback mode is still applied (pager.c pagerOpenWalIfPresent)', () => {
    const path = writeChainFolder(folder(), { ...SMALL, rows: 50, wal: true, walRows: 20, walCommits: 3 })
    const file = readFileSync(path)
    file[18] = 1
    file[19] = 1
    writeFileSync(path, file)
    const wal = readFileSync(`${path}-wal`)
    const layout = walLayout(wal)!
    for (const f of layout.frames.filter((x) => x.page === 1)) {
      framePage(wal, layout, f)[18] = 1
      framePage(wal, layout, f)[19] = 1
    }
    rechecksumWal(wal)
    writeFileSync(`${path}-wal`, wal)
    const oracle = sqliteReading(path, scratch)
    expect(oracle.kind === 'rows' && oracle.rows.length).toBe(50)
    expect(directReading(path)).toEqual(withoutNames(oracle))
  })

  for (const [label, declared] of [
    ['PRIMARY/**/KEY DESC', 'seq INTEGER PRIMARY/**/KEY DESC'],
    ['INTEGER PRIMARY KEY DESC', 'seq INTEGER PRIMARY KEY DESC'],
    ['PRIMARY -- comment KEY DESC', 'seq INTEGER PRIMARY -- the key\n KEY DESC'],
  ] as const) {
    it(`schema with ${label}: seq is a stored column, not the rowid, and SQLite reads it`, async () => {
      const dir = folder()
      mkdirSync(dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const db = new Database(path)
      db.defaultSafeIntegers(true)
      db.exec(CHAIN_SCHEMA.replace('seq INTEGER PRIMARY KEY AUTOINCREMENT', declared))
      // Rowids 1..12 run on; the stored seqs skip 6 (renumbered rows). The seals cover neither.
      const insert = db.prepare(
        'INSERT INTO chain (rowid, seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash, prev_hash, hmac_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      let prev = GENESIS
      rowsOf(12, 0).forEach((r, i) => {
        const ch = sha256(r.body)
        const mac = seal(KEY, prev, ch)
        insert.run(
          i + 1,
          i < 5 ? i + 1 : i + 2,
          r.timestamp_ns,
          '0'.repeat(32),
          '0'.repeat(16),
          r.span_name,
          r.span_kind,
          r.body,
          ch,
          prev,
          mac,
        )
        prev = mac
      })
      db.close()
      expect(() => openDirect(path)).toThrow(/seq is not the rowid/)
      const { verdict, reader } = await verifyFile(path, keys)
      expect(reader).toBe('sqlite-copy')
      expect(verdict.valid).toBe(false)
      expect(verdict.findings).toContainEqual(expect.objectContaining({ kind: 'seq_gap', from_seq: 7 }))
    })
  }
})
