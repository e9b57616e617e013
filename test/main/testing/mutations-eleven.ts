// Test helper: round 11's mutations of the differential harness (./mutations.ts holds the first set).
// - ptr.overlap: a b-tree page's cell pointer array (file format §1.6) with pointers into the page
//   header or the array itself, two cells that overlap, a cell count that stretches the array over
//   the first cells, the content area starting inside the array, pointers swapped out of order.
// - freeblock.lie: the freeblock list (§1.6, header offset 1) looping, pointing past the page or
//   into the pointer array, a freeblock laid over a live cell; the fragmented-bytes count (offset
//   7) lying. SQLite's reads never walk the list (btree.c computes the free space only to write),
//   so SQLite reads these pages as they are; recovery's carving walks it.
// - btree.upcycle: an interior page's right child (offset 8) or a cell's left child aimed at an
//   ancestor (the root, its parent): a cycle across levels.
// - tree.shared: a page of the chain's tree shared with another tree: a child pointer of the chain
//   aimed at a page of an index or of sqlite_sequence, or a schema row's rootpage (the chain's, an
//   index's, sqlite_sequence's) aimed at a page of another tree, at an index's root, or at page 1.
// - wal.foreign: a -wal whose header and checksums are right (salts match) but whose frames were
//   written by another database: the same table written with other rows, or other changes made to a
//   copy of this one, spliced in place of some of the frames or after them.
// - wal.shrink: the last commit frame's database size (frame header offset 4, §4.1) below pages the
//   chain's tree uses.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chainOf, editPage, type BasePages, type Mutation } from './mutations'
import { rechecksumWal, walLayout } from './wal-edit'

const hdr = (n: number): number => (n === 1 ? 100 : 0)
const interior = (type: number): boolean => type === 0x05 || type === 0x02

/** Runs `f` on a private copy of the folder's chain file (and -wal) in a temporary folder. */
function onCopy<T>(dir: string, f: (path: string) => T): T {
  const tmp = mkdtempSync(join(tmpdir(), 'bijotel-m11-'))
  try {
    const path = join(tmp, 'chain.db')
    copyFileSync(chainOf(dir), path)
    if (existsSync(`${chainOf(dir)}-wal`)) copyFileSync(`${chainOf(dir)}-wal`, `${path}-wal`)
    return f(path)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

interface TreePage {
  name: string
  pageno: number
  pagetype: string
}

/** Every b-tree page SQLite lists (dbstat), read from a copy (SQLite may write beside what it opens). */
function treePages(dir: string): TreePage[] {
  return onCopy(dir, (path) => {
    const db = new Database(path)
    try {
      return db.prepare('SELECT name, pageno, pagetype FROM dbstat').all() as TreePage[]
    } finally {
      db.close()
    }
  })
}

function writableSchema(dir: string, sql: string): void {
  const db = new Database(chainOf(dir))
  try {
    // better-sqlite3 opens in SQLite's defensive mode, which forbids writable_schema.
    db.unsafeMode(true)
    db.pragma('writable_schema = ON')
    db.exec(sql)
  } finally {
    db.close()
  }
}

/** Offsets of the cell pointer slots of page `p` (page `n`). */
function slots(p: Buffer, n: number): number[] {
  const h = hdr(n)
  const first = h + (interior(p[h]!) ? 12 : 8)
  const count = p.readUInt16BE(h + 3)
  const out: number[] = []
  for (let i = 0; i < count && first + 2 * i + 2 <= p.length; i++) out.push(first + 2 * i)
  return out
}

/**
 * The WAL frames another database writes from this folder's state: a copy checkpointed, then changed
 * (`change`), its -wal read while the writer still holds it (a close would checkpoint it away).
 */
function foreignFrames(dir: string, change: (db: Database.Database) => void): Buffer | null {
  return onCopy(dir, (path) => {
    const db = new Database(path)
    try {
      db.pragma('journal_mode = WAL')
      db.pragma('wal_autocheckpoint = 0')
      db.pragma('wal_checkpoint(TRUNCATE)')
      change(db)
      const wal = readFileSync(`${path}-wal`)
      return walLayout(wal) ? wal : null
    } catch {
      return null
    } finally {
      db.close()
    }
  })
}

export const ELEVEN_MUTATIONS: Mutation[] = [
  {
    name: 'ptr.overlap',
    apply: (d, r, b: BasePages) => {
      const n = r.chance(0.15) ? 1 : r.pick([...b.leaf, ...b.internal])
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const s = slots(p, n)
        if (s.length === 0) return null
        const end = s.at(-1)! + 2
        const kind = r.int(0, 4)
        if (kind === 0) {
          const at = r.pick(s)
          const v = r.pick([h, h + 1, h + 3, h + 8, s[0]!, end - 2, end - 1, end])
          p.writeUInt16BE(v, at)
          return `page ${n}: cell pointer at ${at} → ${v} (into the header or the array)`
        }
        if (kind === 1 && s.length > 1) {
          // Two cells overlapping: one pointer a few bytes into another's cell.
          const [i, j] = [r.int(0, s.length - 1), r.int(0, s.length - 1)]
          const other = p.readUInt16BE(s[j]!)
          const v = (other + r.pick([0, 1, 2, 3, 4, 9, 40])) & 0xffff
          p.writeUInt16BE(v, s[i]!)
          return `page ${n}: cell pointer ${i} → ${v} (cell ${j} at ${other})`
        }
        if (kind === 2) {
          // A cell count whose pointer array runs over the first cells (content starts at offset 5).
          const content = p.readUInt16BE(h + 5) || 65536
          const more = Math.max(1, Math.ceil((content - end) / 2) + r.int(0, 4))
          const v = Math.min(0xffff, s.length + more)
          p.writeUInt16BE(v, h + 3)
          return `page ${n}: cell count ${s.length} → ${v} (the array over the content at ${content})`
        }
        if (kind === 3) {
          const v = r.pick([h + 8, end - 2, end - 1, Math.max(0, end - 6)])
          p.writeUInt16BE(v, h + 5)
          return `page ${n}: cell content area → ${v} (inside the pointer array ending ${end})`
        }
        if (s.length < 2) return null
        const [i, j] = [r.int(0, s.length - 1), r.int(0, s.length - 1)]
        if (i === j) return null
        const a = p.readUInt16BE(s[i]!)
        p.writeUInt16BE(p.readUInt16BE(s[j]!), s[i]!)
        p.writeUInt16BE(a, s[j]!)
        return `page ${n}: cell pointers ${i} and ${j} swapped`
      })
    },
  },
  {
    name: 'freeblock.lie',
    apply: (d, r, b: BasePages) => {
      const n = r.chance(0.15) ? 1 : r.pick([...b.leaf, ...b.internal])
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const s = slots(p, n)
        const end = (s.at(-1) ?? h + 6) + 2
        const content = p.readUInt16BE(h + 5) || 65536
        const kind = r.int(0, 4)
        if (kind === 0 && content - end >= 8) {
          // Two freeblocks in the gap pointing at each other.
          const a = r.int(end, content - 8)
          const c = r.int(a + 4, content - 4)
          p.writeUInt16BE(a, h + 1)
          p.writeUInt16BE(c, a)
          p.writeUInt16BE(4, a + 2)
          p.writeUInt16BE(r.pick([a, c]), c)
          p.writeUInt16BE(4, c + 2)
          return `page ${n}: freeblocks ${a} → ${c} → back (a loop)`
        }
        if (kind === 1) {
          const v = r.pick([p.length - 2, p.length - 4, 0xfffc, 0xffff, h + 2, end - 2])
          p.writeUInt16BE(v & 0xffff, h + 1)
          return `page ${n}: first freeblock → ${v} (past the page or into the array)`
        }
        if (kind === 2 && s.length > 0) {
          // A freeblock laid over a live cell: its record's bytes after the first four stay.
          const at = p.readUInt16BE(r.pick(s))
          if (at + 4 > p.length || at < end) return null
          const size = Math.min(p.length - at, r.pick([4, 64, 300, p.length]))
          p.writeUInt16BE(at, h + 1)
          p.writeUInt16BE(0, at)
          p.writeUInt16BE(size, at + 2)
          return `page ${n}: a freeblock of ${size} laid over the live cell at ${at}`
        }
        const v = r.pick([0, 1, 3, 60, 61, 200, 255])
        p[h + 7] = v
        return `page ${n}: fragmented bytes → ${v}`
      })
    },
  },
  {
    name: 'btree.upcycle',
    apply: (d, r, b: BasePages) => {
      if (b.internal.length < 2) return null
      const pages = treePages(d).filter((t) => t.name === 'chain')
      const root = pages.find((t) => t.pagetype === 'internal')?.pageno
      if (root === undefined) return null
      const n = r.pick(b.internal.filter((x) => x !== root))
      if (n === undefined) return null
      // The parent of n: the interior page that names it.
      const file = readFileSync(chainOf(d))
      const parentOf = (x: number): number | null => {
        for (const q of b.internal) {
          const pg = file.subarray((q - 1) * b.pageSize, q * b.pageSize)
          const h = hdr(q)
          if (pg.readUInt32BE(h + 8) === x) return q
          for (const at of slots(pg, q))
            if (at + 4 <= pg.length && pg.readUInt32BE(pg.readUInt16BE(at)) === x) return q
        }
        return null
      }
      const parent = parentOf(n)
      const to = r.pick([root, parent ?? root, parentOf(parent ?? root) ?? root])
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const s = slots(p, n)
        const at = s.length > 0 && r.chance(0.5) ? p.readUInt16BE(r.pick(s)) : h + 8
        if (at + 4 > p.length) return null
        p.writeUInt32BE(to, at)
        return `interior ${n}: ${at === h + 8 ? 'right child' : `child at ${at}`} → ancestor ${to}`
      })
    },
  },
  {
    name: 'tree.shared',
    apply: (d, r, b: BasePages) => {
      const all = treePages(d)
      const others = all.filter((t) => t.name !== 'chain' && !/^sqlite_(schema|master)$/.test(t.name))
      if (others.length === 0) return null
      const kind = r.int(0, 2)
      if (kind === 0 && b.internal.length > 0) {
        const other = r.pick(others)
        const n = r.pick(b.internal)
        return editPage(d, b.pageSize, n, (p) => {
          const s = slots(p, n)
          const at = s.length > 0 && r.chance(0.6) ? p.readUInt16BE(r.pick(s)) : hdr(n) + 8
          if (at + 4 > p.length) return null
          p.writeUInt32BE(other.pageno, at)
          return `interior ${n}: a child → page ${other.pageno} (${other.name} ${other.pagetype})`
        })
      }
      // A schema row's rootpage at another tree's page, an index's root or page 1.
      const roots = new Map<string, number>()
      for (const t of all)
        if (t.pagetype !== 'overflow') roots.set(t.name, Math.min(roots.get(t.name) ?? Infinity, t.pageno))
      const names = [...roots.keys()].filter((x) => !/^sqlite_(schema|master)$/.test(x))
      const whose = kind === 1 ? 'chain' : r.pick(names)
      const target = r.pick([
        1,
        ...all.filter((t) => t.name !== whose && t.pagetype !== 'overflow').map((t) => t.pageno),
      ])
      writableSchema(
        d,
        `UPDATE sqlite_master SET rootpage = ${target} WHERE name = '${whose.replace(/'/g, "''")}'`,
      )
      const at = all.find((t) => t.pageno === target)
      return `schema row ${whose}: rootpage → ${target} (${at ? `${at.name} ${at.pagetype}` : 'page 1'})`
    },
  },
  {
    name: 'wal.foreign',
    apply: (d, r) => {
      const path = `${chainOf(d)}-wal`
      if (!existsSync(path)) return null
      const wal = readFileSync(path)
      const l = walLayout(wal)
      if (!l || l.frames.length === 0) return null
      const kind = r.int(0, 2)
      const m = r.int(2, 7)
      const foreign = foreignFrames(d, (db) => {
        if (kind === 0)
          db.exec(`UPDATE chain SET hmac_hash = 'f' || substr(hmac_hash, 2) WHERE seq % ${m} = 0`)
        else if (kind === 1) db.exec(`DELETE FROM chain WHERE seq % ${m} = 1`)
        else {
          // Another database's rows in the same table: the rows rewritten end to end.
          db.exec('DELETE FROM chain')
          db.exec(
            `WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < ${20 + m * 10}) ` +
              `INSERT INTO chain (seq, timestamp_ns, canonical_body, canonical_hash, prev_hash, hmac_hash) ` +
              `SELECT x, x, randomblob(${m * 30}), lower(hex(randomblob(32))), lower(hex(randomblob(32))), lower(hex(randomblob(32))) FROM s`,
          )
        }
      })
      if (!foreign) return null
      const fl = walLayout(foreign)
      if (!fl || fl.pageSize !== l.pageSize || fl.frames.length === 0) return null
      const frameBytes = 24 + l.pageSize
      const keep = r.int(0, l.frames.length)
      const take = r.int(1, fl.frames.length)
      const from = r.int(0, fl.frames.length - take)
      const spliced = Buffer.concat([
        wal.subarray(0, 32 + keep * frameBytes),
        foreign.subarray(32 + from * frameBytes, 32 + (from + take) * frameBytes),
      ])
      // The foreign frames carry this WAL's salts: SQLite takes them as its own.
      for (let i = keep; i < keep + take; i++) wal.copy(spliced, 32 + i * frameBytes + 8, 16, 24)
      // The last frame taken commits (its database size the foreign file's).
      const last = 32 + (keep + take - 1) * frameBytes
      if (spliced.readUInt32BE(last + 4) === 0 && r.chance(0.7))
        spliced.writeUInt32BE(Math.max(...fl.frames.map((f) => f.commit)), last + 4)
      rechecksumWal(spliced)
      writeFileSync(path, spliced)
      return `${take} frames of another database (${['hashes changed', 'rows deleted', 'other rows'][kind]}) after ${keep} of ${l.frames.length}`
    },
  },
  {
    name: 'wal.shrink',
    apply: (d, r, b: BasePages) => {
      const path = `${chainOf(d)}-wal`
      if (!existsSync(path)) return null
      const wal = readFileSync(path)
      const l = walLayout(wal)
      const commits = l?.frames.filter((f) => f.commit > 0) ?? []
      if (commits.length === 0) return null
      const f = r.chance(0.7) ? commits.at(-1)! : r.pick(commits)
      const used = [...b.leaf, ...b.internal, ...b.overflow]
      const top = Math.max(...used)
      const v = r.pick([1, 2, top - 1, Math.max(1, r.pick(used) - 1), Math.floor(f.commit / 2) || 1])
      wal.writeUInt32BE(v, f.at + 4)
      rechecksumWal(wal)
      writeFileSync(path, wal)
      return `commit frame at ${f.at}: database size ${f.commit} → ${v} (the tree reaches page ${top})`
    },
  },
]
