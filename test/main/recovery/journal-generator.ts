// Test kit (issue 39, "declined files are still searched"): rollback-journal histories of a chain
// file, honest or attacked, with a `-journal` beside it — hot (SQLite rolls it back before reading,
// so the direct reader declines the file) or left over (journal_mode=PERSIST zeroes the header and
// keeps the page images). Honest: a writer caught mid-append or mid-rewrite of unrelated columns (a
// real crash: the files copied while the transaction's pages are spilled), a benign hot journal
// restoring pages with their own bytes, PERSIST leftovers of honest appends. Attacks: a tail cut
// whose remnants stay in chain.db or only in the journal's old images, a middle row deleted whose old
// page only the journal keeps — each then hidden behind a benign hot journal or not. Foreign rows
// sealed under the same key (another chain's leaf pages) planted as journal images SQLite never plays.
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { GENESIS, Rng } from '../reliability/chainkit'
import { CHAIN_DDL, caseFolder, insert, openWriter, version, type RowVersion } from '../testing/sealed-writer'

export type JournalHistory =
  'crash-append' | 'crash-touch' | 'benign-hot' | 'persist-appends' | 'persist-rollback'
export type JournalAttack =
  'none' | 'truncate-tail-db' | 'truncate-tail-journal' | 'delete-middle-journal' | 'body-edit-journal'

export interface JournalCase {
  name: string
  pageSize: number
  history: JournalHistory
  attack: JournalAttack
  /** Hide the attack behind a benign hot journal (the direct reader then declines the file). */
  hot: boolean
  /** Plant leaf pages of another chain sealed under the same key as journal images never played. */
  foreign: boolean
  rows: number
}

export interface JournalOut {
  db: string
  key: Buffer
  /** Seqs the attack removed: findings must lie exactly on them. */
  attacked: Set<bigint>
  /** hmac_hash of every foreign row planted. */
  foreign: Set<string>
  /** Seqs sealed by a transaction that never committed (crash-append). */
  inFlight: Set<bigint>
  /** Whether the journal left beside the evidence is hot. */
  hotJournal: boolean
  /** Whether the journal is only a benign one: restores pages with their own bytes, nothing else. */
  benignOnly: boolean
  live: Map<bigint, RowVersion>
  cleanup(): void
}

const MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])
const SECTOR = 512

/** A journal record (file-format §4.1): page number, image, pager_cksum over every 200th byte. */
function record(page: number, image: Buffer, nonce: number): Buffer {
  const out = Buffer.alloc(image.length + 8)
  out.writeUInt32BE(page, 0)
  image.copy(out, 4)
  let sum = nonce
  for (let i = image.length - 200; i > 0; i -= 200) sum = (sum + image[i]!) >>> 0
  out.writeUInt32BE(sum, 4 + image.length)
  return out
}

/** A journal header padded to a sector: nRec records, the database's size in pages before. */
function header(nRec: number, nonce: number, pages: number, pageSize: number): Buffer {
  const h = Buffer.alloc(SECTOR)
  MAGIC.copy(h, 0)
  h.writeUInt32BE(nRec, 8)
  h.writeUInt32BE(nonce, 12)
  h.writeUInt32BE(pages, 16)
  h.writeUInt32BE(SECTOR, 20)
  h.writeUInt32BE(pageSize, 24)
  return h
}

const pageOf = (file: Buffer, n: number, size: number): Buffer => file.subarray((n - 1) * size, n * size)

/**
 * A benign hot journal for `db`: it restores `pages` with their own bytes (a rollback changes
 * nothing); `stale` (whole records) follow as leftovers of earlier transactions, never played.
 */
function benignJournal(rng: Rng, db: string, pageSize: number, stale: Buffer[]): Buffer {
  const file = readFileSync(db)
  const pages = file.length / pageSize
  const nonce = rng.int(0, 0x7fffffff)
  const picks = [...new Set([1, rng.int(1, pages), rng.int(1, pages)])]
  return Buffer.concat([
    header(picks.length, nonce, pages, pageSize),
    ...picks.map((p) => record(p, pageOf(file, p, pageSize), nonce)),
    ...stale,
  ])
}

/** The records of a PERSIST journal (zeroed header): every whole record after the first sector. */
function persistRecords(journal: Buffer, pageSize: number): Buffer[] {
  const out: Buffer[] = []
  for (let at = SECTOR; at + pageSize + 8 <= journal.length; at += pageSize + 8)
    if (journal.readUInt32BE(at) !== 0) out.push(journal.subarray(at, at + pageSize + 8))
  return out
}

/** Leaf pages of another chain sealed under `key`, as stale journal records for pages of this file. */
function foreignRecords(
  rng: Rng,
  dir: string,
  key: Buffer,
  pageSize: number,
  pages: number,
  live: Map<bigint, RowVersion>,
  planted: Set<string>,
): Buffer[] {
  const db = openWriter(join(dir, 'other.db'), { pageSize, journal: 'delete' })
  db.exec(CHAIN_DDL)
  // From GENESIS or a random head; rowids inside the live range or past its head.
  let prev = rng.chance(0.5) ? GENESIS : rng.hex(64)
  const last = [...live.keys()].reduce((a, b) => (a > b ? a : b), 0n)
  let seq = rng.chance(0.5) ? 1n + BigInt(rng.int(0, Number(last) - 1)) : last + BigInt(rng.int(1, 3))
  for (let i = 0; i < 6; i++) {
    const v = version(rng, key, seq++, prev, pageSize <= 1024 ? 150 : 300, 'foreign')
    insert(db, v)
    planted.add(v.hmac)
    prev = v.hmac
  }
  db.close()
  const file = readFileSync(join(dir, 'other.db'))
  const out: Buffer[] = []
  for (let n = 2; n <= file.length / pageSize; n++) {
    const p = pageOf(file, n, pageSize)
    // Table leaf pages (type 13) of the other file, named as pages of this one.
    if (p[0] === 0x0d) out.push(record(rng.int(2, pages), p, rng.int(0, 0x7fffffff)))
  }
  return out
}

export function generateJournal(c: JournalCase, seed: number): JournalOut {
  const rng = new Rng(seed)
  const key = rng.bytes(32)
  const { dir, work, evidence, cleanup } = caseFolder('bijotel-journal-')
  const live = new Map<bigint, RowVersion>()
  const attacked = new Set<bigint>()
  const foreign = new Set<string>()
  const inFlight = new Set<bigint>()
  const pad = c.pageSize <= 1024 ? 300 : 500
  const persist = c.history.startsWith('persist') || c.attack.endsWith('-journal')
  const db = openWriter(work, { pageSize: c.pageSize, journal: persist ? 'persist' : 'delete' })
  let prev = GENESIS
  let next = 1n
  const seal = (small = false): RowVersion => {
    const v = version(rng, key, next++, prev, small ? 10 : pad, 'original')
    prev = v.hmac
    return v
  }
  const append = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const v = seal()
      db.transaction(() => insert(db, v))()
      live.set(v.seq, v)
    }
  }
  const drop = (from: bigint, to: bigint): void => {
    db.prepare('DELETE FROM chain WHERE seq >= ? AND seq <= ?').run(from, to)
    for (let s = from; s <= to; s++) if (live.delete(s)) attacked.add(s)
  }
  let journal: Buffer | null = null
  let hotJournal = false
  let benignOnly = false
  try {
    db.exec(CHAIN_DDL)
    append(c.rows)
    if (c.history === 'persist-rollback') {
      // A sealed row the writer rolled back: never committed, never a finding.
      const v = seal()
      db.exec('BEGIN')
      insert(db, v)
      db.exec('ROLLBACK')
      prev = live.get(next - 2n)!.hmac
      next--
    }
    // The attack, committed; secure_delete ON where the remnants must stay only in the journal.
    const last = BigInt(c.rows)
    if (c.attack === 'truncate-tail-db' || c.attack === 'truncate-tail-journal') {
      if (c.attack === 'truncate-tail-journal') db.pragma('secure_delete = ON')
      drop(last - BigInt(rng.int(1, 4)), last)
    } else if (c.attack === 'body-edit-journal') {
      // A body and its canonical_hash edited without the key, the same size (rewritten in place):
      // only the journal's old image keeps the original.
      db.pragma('secure_delete = ON')
      const q = BigInt(rng.int(3, c.rows - 3))
      const v = live.get(q)!
      const body = Buffer.from(v.body.toString('latin1').replace('"original"', '"edited!!"'), 'latin1')
      db.prepare('UPDATE chain SET canonical_body = ?, canonical_hash = ? WHERE seq = ?').run(
        body,
        createHash('sha256').update(body).digest('hex'),
        q,
      )
      attacked.add(q)
    } else if (c.attack === 'delete-middle-journal') {
      db.pragma('secure_delete = ON')
      const m = BigInt(rng.int(3, c.rows - 3))
      drop(m, m)
    }
    if (c.history === 'crash-append' || c.history === 'crash-touch') {
      // A real crash: pages spilled into the file while the transaction is open, files copied then.
      db.pragma('cache_size = 2')
      db.exec('BEGIN IMMEDIATE')
      if (c.history === 'crash-append')
        for (let i = 0, n = rng.int(2, 6); i < n; i++) {
          // Small rows first: they fit in the last leaf's free space (a page the journal restores),
          // larger ones spill onto new pages (which the rollback cuts off).
          const v = seal(i < 2)
          insert(db, v)
          inFlight.add(v.seq)
        }
      db.exec(
        c.history === 'crash-touch'
          ? "UPDATE chain SET span_name = span_name || ' (retried)'"
          : 'UPDATE chain SET span_kind = span_kind',
      )
      copyFileSync(work, evidence)
      copyFileSync(`${work}-journal`, `${evidence}-journal`)
      db.exec('ROLLBACK')
      hotJournal = true
    } else {
      db.close()
      copyFileSync(work, evidence)
      const left = existsSync(`${work}-journal`) ? readFileSync(`${work}-journal`) : null
      let stale = left && persist ? persistRecords(left, c.pageSize) : []
      if (c.foreign)
        stale = [
          ...stale,
          ...foreignRecords(
            rng,
            dir,
            key,
            c.pageSize,
            readFileSync(evidence).length / c.pageSize,
            live,
            foreign,
          ),
        ]
      if (c.history === 'benign-hot' || c.hot) {
        journal = benignJournal(rng, evidence, c.pageSize, stale)
        hotJournal = true
        benignOnly = stale.length === 0
      } else if (stale.length > 0) journal = Buffer.concat([Buffer.alloc(SECTOR), ...stale])
      if (journal) writeFileSync(`${evidence}-journal`, journal)
    }
  } finally {
    if (db.open) db.close()
  }
  return {
    db: evidence,
    key,
    attacked,
    foreign,
    inFlight,
    hotJournal,
    benignOnly,
    live,
    cleanup,
  }
}
