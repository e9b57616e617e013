// Test helper: round 9's mutations of the differential harness (./mutations.ts holds the first set).
// Page-1 fields set to the values SQLite gives a meaning (file format §1.3) in the WAL's committed
// page-1 image, the copy SQLite reads (header.value edits the file's, which a WAL page 1 hides);
// a freelist whose trunk says more leaves than a trunk holds or links back on itself, and a header
// whose freelist count lies (§1.5: SQLite reads the freelist only to allocate or to check, never to
// read a table); and frames past the last commit that carry pages beyond the database's size, never
// committed (§4.4: a reader uses no frame after the last valid commit frame); and an index on the
// chain that covers a full scan and leaves rows out, with sqlite_stat1 calling it narrow, so that
// SQLite's planner would scan it for a query of the table not written NOT INDEXED.
import Database from 'better-sqlite3'
import { readFileSync, writeFileSync } from 'node:fs'
import type { Rng } from '../reliability/chainkit'
import { chainOf, editPage, type BasePages, type Mutation } from './mutations'
import { framePage, rechecksumWal, walLayout } from './wal-edit'

/** A page-1 field at `p` (a whole page 1) set to a value SQLite gives a meaning; what was done. */
function headerValue(r: Rng, p: Buffer): string {
  const kind = r.int(0, 7)
  if (kind === 0) {
    const v = r.pick([0, 2, 3, 4])
    p.writeUInt32BE(v, 56)
    return `text encoding ${v}`
  }
  if (kind === 1) {
    const v = r.pick([0, 1, 2, 3, 5])
    p.writeUInt32BE(v, 44)
    return `schema format ${v}`
  }
  if (kind === 2) {
    const v = r.pick([1, 8, 32, 64, 255])
    p[20] = v
    return `reserved bytes ${v}`
  }
  if (kind === 3) {
    const at = r.pick([21, 22, 23])
    p[at] = r.pick([0, 31, 33, 63, 65, 255])
    return `payload fraction byte ${at} = ${p[at]}`
  }
  if (kind === 4) {
    const v = r.pick([1, 512, 1024, 2048, 4096, 8192, 16384, 32768, 0, 3])
    p.writeUInt16BE(v, 16)
    return `page size field ${v}`
  }
  if (kind === 5) {
    // Auto-vacuum's largest root page and incremental-vacuum flag (§1.3.9): a pointer map claimed.
    p.writeUInt32BE(r.pick([0, 1, 2, 3, 0x7fffffff]), 52)
    p.writeUInt32BE(r.pick([0, 1, 2]), 64)
    return `largest root ${p.readUInt32BE(52)}, incremental vacuum ${p.readUInt32BE(64)}`
  }
  if (kind === 6) {
    // The schema cookie (§1.3.7): SQLite rereads the schema when it differs from a cached one.
    p.writeUInt32BE(r.pick([0, 1, (p.readUInt32BE(40) + 1) >>> 0, 0xffffffff]), 40)
    return `schema cookie ${p.readUInt32BE(40)}`
  }
  const at = r.pick([18, 19])
  p[at] = r.pick([0, 1, 2, 3])
  return `file format byte ${at} = ${p[at]}`
}

export const NINE_MUTATIONS: Mutation[] = [
  {
    name: 'wal.page1.value',
    apply: (d, r) => {
      const path = `${chainOf(d)}-wal`
      let wal: Buffer
      try {
        wal = readFileSync(path)
      } catch {
        return null
      }
      const l = walLayout(wal)
      if (!l) return null
      const last = l.frames.reduce((k, f, i) => (f.commit ? i : k), -1)
      const ones = l.frames.filter((f, i) => f.page === 1 && i <= last)
      if (ones.length === 0) return null
      // The last committed image of page 1 (the one SQLite reads), else an older one.
      const f = r.chance(0.8) ? ones[ones.length - 1]! : r.pick(ones)
      const what = headerValue(r, framePage(wal, l, f))
      rechecksumWal(wal)
      writeFileSync(path, wal)
      return `WAL page-1 frame at ${f.at}: ${what}`
    },
  },
  {
    name: 'freelist.lies',
    apply: (d, r, b: BasePages) => {
      const file = readFileSync(chainOf(d))
      const pages = Math.floor(file.length / b.pageSize)
      const trunk = file.readUInt32BE(32)
      const usable = b.pageSize - file[20]!
      const kind = r.int(0, 3)
      if (kind <= 1 && trunk > 1 && trunk <= pages)
        return editPage(d, b.pageSize, trunk, (p) => {
          if (kind === 0) {
            const count = p.readUInt32BE(4)
            const v = r.pick([
              0,
              count + 1,
              count + r.int(2, 50),
              usable / 4 - 2,
              usable / 4 - 1,
              0x7fffffff,
              0xffffffff,
            ])
            p.writeUInt32BE(v >>> 0, 4)
            return `trunk ${trunk}'s leaf count ${count} → ${v >>> 0}`
          }
          const to = r.pick([
            trunk,
            1,
            pages,
            pages + 1,
            0xffffffff,
            r.pick([...b.leaf, ...b.internal, trunk]),
          ])
          p.writeUInt32BE(to >>> 0, 0)
          return `trunk ${trunk}'s next trunk → ${to >>> 0}`
        })
      return editPage(d, b.pageSize, 1, (p) => {
        if (kind === 2) {
          const v = r.pick([0, 1, (p.readUInt32BE(36) + 1) >>> 0, pages, pages + 5, 0xffffffff])
          p.writeUInt32BE(v >>> 0, 36)
          return `freelist count → ${v >>> 0}`
        }
        const to = r.pick([1, pages, pages + 1, r.pick([...b.leaf, ...b.internal, 1]), 0])
        p.writeUInt32BE(to, 32)
        if (r.chance(0.5)) p.writeUInt32BE(r.int(1, 3), 36)
        return `first trunk → ${to}, count ${p.readUInt32BE(36)}`
      })
    },
  },
  {
    name: 'wal.uncommitted',
    apply: (d, r) => {
      const path = `${chainOf(d)}-wal`
      let wal: Buffer
      try {
        wal = readFileSync(path)
      } catch {
        return null
      }
      const l = walLayout(wal)
      if (!l || l.frames.length === 0) return null
      const last = l.frames.reduce((k, f, i) => (f.commit ? i : k), -1)
      if (last < 0) return null
      const size = l.frames[last]!.commit
      const frames: Buffer[] = []
      const n = r.int(1, 4)
      for (let i = 0; i < n; i++) {
        // A copy of a committed frame (its salts), for a page past the size or for page 1 grown,
        // its commit field 0: never committed.
        const src = r.pick(l.frames.slice(0, last + 1))
        const frame = Buffer.from(wal.subarray(src.at, src.at + 24 + l.pageSize))
        const page = r.chance(0.3) ? 1 : size + r.int(1, 6)
        frame.writeUInt32BE(page, 0)
        frame.writeUInt32BE(0, 4)
        if (page === 1 && src.page === 1) frame.writeUInt32BE(size + r.int(1, 6), 24 + 28)
        frames.push(frame)
      }
      const out = Buffer.concat([wal.subarray(0, 32 + l.frames.length * (24 + l.pageSize)), ...frames])
      rechecksumWal(out)
      writeFileSync(path, out)
      return `${n} uncommitted frames after ${l.frames.length} (size ${size}): pages ${frames.map((f) => f.readUInt32BE(0)).join(', ')}`
    },
  },
  {
    name: 'schema.index',
    apply: (d, r) => {
      const db = new Database(chainOf(d))
      try {
        const names = (db.prepare('PRAGMA table_info(chain)').all() as { name: string }[]).map(
          (c) => `"${c.name}"`,
        )
        const cols = r.chance(0.5) ? names.filter((c) => c !== '"seq"') : names
        const m = r.int(2, 5)
        const where = ` WHERE rowid % ${m} <> ${r.int(0, m - 1)}`
        db.exec(
          `CREATE INDEX cover ON chain (${(r.chance(0.5) ? cols : [...cols].reverse()).join(', ')})${where}`,
        )
        db.exec('ANALYZE')
        db.prepare("DELETE FROM sqlite_stat1 WHERE idx = 'cover'").run()
        db.prepare("INSERT INTO sqlite_stat1 VALUES ('chain', 'cover', ?)").run(`${r.int(1, 20)} 1 sz=1`)
        db.unsafeMode(true)
        db.pragma('writable_schema = ON')
        db.prepare("UPDATE sqlite_master SET sql = replace(sql, ?, '') WHERE name = 'cover'").run(where)
        return `a covering index leaving out rows${where}, stated narrow`
      } finally {
        db.close()
      }
    },
  },
]
