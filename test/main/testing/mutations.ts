// Test helper: the differential harness's mutations of a chain folder — WAL frames, header fields,
// the stored schema, interior keys and child pointers, cells and overflow chains, the freelist,
// side files (journals, links, FIFOs, folders), cells re-encoded with longer varints
// (./cell-recode.ts). Each one changes a private copy of a generated folder in place and says what
// it did; seeded, so a failing case is reproduced from its seed.
import Database from 'better-sqlite3'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Rng } from '../reliability/chainkit'
import { STORED_SCHEMA } from '../../../src/main/chain/schema'
import { CELL_FIELDS, rebuildLeaf } from './cell-recode'
import { framePage, rechecksumWal, walLayout } from './wal-edit'

/** What a base folder's chain table occupies (from SQLite's dbstat, taken once per base). */
export interface BasePages {
  pageSize: number
  internal: number[]
  leaf: number[]
  overflow: number[]
}

export interface Mutation {
  name: string
  /** SQLite is not asked (it would fail or wait on the file): the direct reader must not give rows. */
  noOracle?: boolean
  /** Changes the folder; returns what it did, or null when it does not apply to this base. */
  apply(dir: string, rng: Rng, base: BasePages): string | null
}

/** From a private copy of a base (dbstat needs a connection that may write). */
export function basePages(path: string): BasePages {
  const db = new Database(path)
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number
    const rows = db.prepare("SELECT pageno, pagetype FROM dbstat WHERE name = 'chain'").all() as {
      pageno: number
      pagetype: string
    }[]
    const of = (t: string): number[] => rows.filter((r) => r.pagetype === t).map((r) => r.pageno)
    return { pageSize, internal: of('internal'), leaf: of('leaf'), overflow: of('overflow') }
  } finally {
    db.close()
  }
}

export const chainOf = (dir: string): string => join(dir, 'chain.db')

/** Edits `bytes` of page `n` of the chain file (when the file holds that page). */
export function editPage(
  dir: string,
  pageSize: number,
  n: number,
  edit: (page: Buffer) => string | null,
): string | null {
  const path = chainOf(dir)
  const file = readFileSync(path)
  if (n * pageSize > file.length) return null
  const what = edit(file.subarray((n - 1) * pageSize, n * pageSize))
  if (what !== null) writeFileSync(path, file)
  return what
}

const hdr = (n: number): number => (n === 1 ? 100 : 0)

function editWal(dir: string, edit: (wal: Buffer) => string | null): string | null {
  const path = `${chainOf(dir)}-wal`
  if (!existsSync(path)) return null
  const wal = readFileSync(path)
  if (!walLayout(wal)?.frames.length) return null
  const what = edit(wal)
  if (what !== null) writeFileSync(path, wal)
  return what
}

/** A byte of a varint's last byte or of a 2/4-byte field: small changes SQLite may still accept. */
function nudge(rng: Rng, b: number): number {
  return rng.chance(0.5) ? (b + rng.pick([1, -1, 2, -2, 0x40]) + 256) & 0xff : rng.int(0, 255)
}

const HEADER_FIELDS = [
  16, 17, 18, 19, 20, 21, 22, 23, 24, 27, 28, 31, 32, 35, 36, 39, 40, 44, 47, 48, 52, 55, 56, 59, 64, 67, 92,
  95, 96,
]

/** Schema texts for the chain table, as an attacker could store them (writable_schema). */
function schemaVariants(): [string, string][] {
  const ref = STORED_SCHEMA['chain']!
  return [
    ['comments', ref.replace('seq INTEGER PRIMARY KEY', 'seq /* the key */ INTEGER PRIMARY -- k\n KEY')],
    ['comment-in-key', ref.replace('PRIMARY KEY', 'PRIMARY/**/KEY')],
    ['desc', ref.replace('PRIMARY KEY AUTOINCREMENT', 'PRIMARY KEY DESC')],
    ['desc-comment', ref.replace('PRIMARY KEY AUTOINCREMENT', 'PRIMARY/**/KEY DESC')],
    ['int-not-integer', ref.replace('seq INTEGER', 'seq INT')],
    ['quoting', ref.replace('seq INTEGER', '"seq" INTEGER').replace('hmac_hash TEXT', '[hmac_hash] TEXT')],
    ['case', ref.replace('CREATE TABLE chain', 'create table CHAIN')],
    ['upper-columns', ref.replace('seq INTEGER', 'SEQ INTEGER')],
    ['without-rowid', ref.replace(/\)$/, ') WITHOUT ROWID')],
    ['default-extra', ref.replace(/\n\)$/, ",\n    extra TEXT DEFAULT 'zz'\n)")],
    ['null-extra', ref.replace(/\n\)$/, ',\n    extra TEXT\n)')],
    ['default-existing', ref.replace('span_kind TEXT', "span_kind TEXT DEFAULT 'X'")],
    [
      'reordered',
      ref.replace('prev_hash TEXT NOT NULL,\n    hmac_hash', 'hmac_hash TEXT NOT NULL,\n    prev_hash'),
    ],
    ['generated', ref.replace(/\n\)$/, ',\n    g TEXT AS (span_name) VIRTUAL\n)')],
    ['real-ts', ref.replace('timestamp_ns INTEGER', 'timestamp_ns REAL')],
    ['fewer-columns', ref.replace(',\n    semantic_body_hash TEXT', '')],
    ['garbage', 'CREATE TABLE chain (seq INTEGER PRIMARY KEY, oops'],
  ]
}

function writableSchema(dir: string, sqls: string[]): void {
  const db = new Database(chainOf(dir))
  try {
    // better-sqlite3 opens in SQLite's defensive mode, which forbids writable_schema.
    db.unsafeMode(true)
    db.pragma('writable_schema = ON')
    for (const sql of sqls) db.exec(sql)
  } finally {
    db.close()
  }
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`

export const MUTATIONS: Mutation[] = [
  // WAL frames (file format §4).
  {
    name: 'wal.flip',
    apply: (d, r) =>
      editWal(d, (w) => {
        const i = r.int(32, w.length - 1)
        w[i] = nudge(r, w[i]!)
        return `byte ${i}`
      }),
  },
  {
    name: 'wal.salt',
    apply: (d, r) =>
      editWal(d, (w) => {
        const f = r.pick(walLayout(w)!.frames)
        const i = f.at + 8 + r.int(0, 7)
        w[i] = w[i]! ^ 1
        return `salt of frame at ${f.at}`
      }),
  },
  {
    name: 'wal.commit',
    apply: (d, r) =>
      editWal(d, (w) => {
        const l = walLayout(w)!
        const f = r.pick(l.frames)
        const v = r.pick([0, f.commit + 1, Math.max(0, f.commit - 1), r.int(1, 5000)])
        w.writeUInt32BE(v >>> 0, f.at + 4)
        rechecksumWal(w)
        return `commit size ${f.commit} → ${v} at ${f.at}`
      }),
  },
  {
    name: 'wal.page1',
    apply: (d, r) =>
      editWal(d, (w) => {
        const l = walLayout(w)!
        const ones = l.frames.filter((f) => f.page === 1)
        if (ones.length === 0) return null
        const p = framePage(w, l, r.pick(ones))
        const at = r.pick(HEADER_FIELDS)
        p[at] = nudge(r, p[at]!)
        rechecksumWal(w)
        return `page-1 frame byte ${at}`
      }),
  },
  {
    name: 'wal.data',
    apply: (d, r) =>
      editWal(d, (w) => {
        const l = walLayout(w)!
        const f = r.pick(l.frames)
        const i = r.int(0, l.pageSize - 1)
        framePage(w, l, f)[i] = nudge(r, framePage(w, l, f)[i]!)
        rechecksumWal(w)
        return `page ${f.page} byte ${i}, checksums redone`
      }),
  },
  {
    name: 'wal.pgno',
    apply: (d, r) =>
      editWal(d, (w) => {
        const f = r.pick(walLayout(w)!.frames)
        const v = r.int(0, f.page + 8)
        w.writeUInt32BE(v, f.at)
        rechecksumWal(w)
        return `frame page ${f.page} → ${v}`
      }),
  },
  {
    name: 'wal.truncate',
    apply: (d, r) => {
      const p = `${chainOf(d)}-wal`
      if (!existsSync(p)) return null
      const w = readFileSync(p)
      const at = r.int(0, w.length - 1)
      writeFileSync(p, w.subarray(0, at))
      return `cut at ${at}`
    },
  },
  {
    name: 'wal.header',
    apply: (d, r) =>
      editWal(d, (w) => {
        const at = r.pick([0, 3, 4, 7, 8, 10, 11, 12, 16, 20, 24, 28])
        w[at] = nudge(r, w[at]!)
        if (r.chance(0.5)) rechecksumWal(w)
        return `header byte ${at}`
      }),
  },
  // The database header (file format §1.3), as the file holds it.
  {
    name: 'header.field',
    apply: (d, r, b) =>
      editPage(d, b.pageSize, 1, (p) => {
        const at = r.pick(HEADER_FIELDS)
        p[at] = nudge(r, p[at]!)
        return `header byte ${at}`
      }),
  },
  // The stored schema.
  {
    name: 'schema.sql',
    apply: (d, r) => {
      const [label, sql] = r.pick(schemaVariants())
      writableSchema(d, [`UPDATE sqlite_master SET sql = ${q(sql)} WHERE name = 'chain'`])
      return label
    },
  },
  {
    name: 'schema.row',
    apply: (d, r) => {
      const which = r.int(0, 4)
      const sql = [
        "UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'idx_chain_trace') WHERE name = 'chain'",
        "UPDATE sqlite_master SET name = 'chain2' WHERE name = 'chain'",
        "UPDATE sqlite_master SET type = 'view' WHERE name = 'chain'",
        "INSERT INTO sqlite_master SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master WHERE name = 'chain'",
        "UPDATE sqlite_master SET rootpage = rootpage + 1 WHERE name = 'chain'",
      ][which]!
      writableSchema(d, [sql])
      return `schema row ${which}`
    },
  },
  // Interior pages (§1.6): divider keys, child pointers, cell counts.
  {
    name: 'btree.interior',
    apply: (d, r, b) => {
      if (b.internal.length === 0) return null
      const n = r.pick(b.internal)
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const cells = p.readUInt16BE(h + 3)
        const kind = r.int(0, 4)
        if (kind === 0) {
          p.writeUInt32BE(r.pick([...b.leaf, ...b.internal, r.int(0, 2000)]), h + 8)
          return `right child of ${n}`
        }
        if (cells === 0) return null
        const at = p.readUInt16BE(h + 12 + 2 * r.int(0, cells - 1))
        if (at + 5 > p.length) return null
        if (kind === 1) {
          p.writeUInt32BE(r.pick([...b.leaf, ...b.internal, r.int(0, 2000)]), at)
          return `child pointer in ${n}`
        }
        if (kind === 2) {
          const other = p.readUInt16BE(h + 12 + 2 * r.int(0, cells - 1))
          const a = p.readUInt32BE(at)
          p.writeUInt32BE(p.readUInt32BE(other), at)
          p.writeUInt32BE(a, other)
          return `children swapped in ${n}`
        }
        if (kind === 3) {
          // The divider key's last varint byte: a lowered (or raised) key.
          let i = at + 4
          while (i < at + 12 && p[i]! & 0x80) i++
          p[i] = (p[i]! & 0x80) | (r.int(0, 127) & 0x7f)
          return `divider key in ${n}`
        }
        p.writeUInt16BE(r.pick([0, cells - 1, cells + 1, 0xffff]), h + 3)
        return `interior cell count of ${n}`
      })
    },
  },
  // Leaf cells and records (§1.6, §2.1).
  {
    name: 'cell.leaf',
    apply: (d, r, b) => {
      if (b.leaf.length === 0) return null
      const n = r.pick(b.leaf)
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const cells = p.readUInt16BE(h + 3)
        const kind = r.int(0, 6)
        if (kind === 0) {
          p.writeUInt16BE(r.pick([0, cells - 1, cells + 1, r.int(0, 0xffff)]) & 0xffff, h + 3)
          return `cell count of ${n}`
        }
        if (kind === 1) {
          p[h] = r.pick([0x05, 0x0a, 0x02, 0x00, 0x0d ^ 0x10])
          return `page type of ${n}`
        }
        if (cells === 0) return null
        const slot = h + 8 + 2 * r.int(0, cells - 1)
        if (kind === 2) {
          p.writeUInt16BE(
            r.chance(0.5) ? p.readUInt16BE(h + 8 + 2 * r.int(0, cells - 1)) : r.int(0, 0xffff),
            slot,
          )
          return `cell pointer in ${n}`
        }
        const at = p.readUInt16BE(slot)
        if (at + 12 >= p.length) return null
        // kind 3: payload size; 4: rowid; 5: record header; 6: any byte of the cell.
        const off =
          kind === 3
            ? 0
            : kind === 4
              ? r.int(1, 3)
              : kind === 5
                ? r.int(3, 12)
                : r.int(0, Math.min(400, p.length - at - 1))
        p[at + off] = nudge(r, p[at + off]!)
        return `cell byte +${off} (${['', '', '', 'payload size', 'rowid', 'header', 'any'][kind]}) in ${n}`
      })
    },
  },
  // Leaf cells whose varints take more bytes than needed (§1.3): SQLite reads a nine-byte payload
  // size otherwise than its other varints (btreeParseCellPtr), so every length of every field.
  {
    name: 'cell.varint',
    apply: (d, r, b) => {
      const leaves = b.leaf.filter((n) => n > 1)
      if (leaves.length === 0) return null
      const n = r.pick(leaves)
      const field = r.pick(CELL_FIELDS)
      const len = r.chance(0.4) ? 9 : r.int(1, 8)
      const file = readFileSync(chainOf(d))
      if (n * b.pageSize > file.length || !rebuildLeaf(file, b.pageSize, n, field, len)) return null
      writeFileSync(chainOf(d), file)
      return `leaf ${n}: ${field} varints in ${len} bytes`
    },
  },
  // Overflow chains (§1.6).
  {
    name: 'overflow',
    apply: (d, r, b) => {
      if (b.overflow.length === 0) return null
      const n = r.pick(b.overflow)
      return editPage(d, b.pageSize, n, (p) => {
        if (r.chance(0.5)) {
          p.writeUInt32BE(r.pick([0, n, r.pick(b.overflow), r.pick(b.leaf), r.int(1, 3000)]), 0)
          return `next pointer of overflow page ${n}`
        }
        const i = r.int(4, p.length - 1)
        p[i] = nudge(r, p[i]!)
        return `byte ${i} of overflow page ${n}`
      })
    },
  },
  // The freelist (§1.5): header fields and a trunk page.
  {
    name: 'freelist',
    apply: (d, r, b) => {
      const trunk = readFileSync(chainOf(d)).readUInt32BE(32)
      if (trunk > 1 && r.chance(0.5))
        return editPage(d, b.pageSize, trunk, (p) => {
          const at = r.int(0, 11)
          p[at] = nudge(r, p[at]!)
          return `freelist trunk page ${trunk} byte ${at}`
        })
      return editPage(d, b.pageSize, 1, (p) => {
        const at = r.pick([32, 35, 36, 39])
        p[at] = nudge(r, p[at]!)
        return `freelist header byte ${at}`
      })
    },
  },
  // Side files.
  {
    name: 'side.journal',
    apply: (d, r) => {
      const j = `${chainOf(d)}-journal`
      if (existsSync(j)) {
        const b = readFileSync(j)
        const kind = r.int(0, 3)
        if (kind === 0) b[0] = 0
        else if (kind === 1) {
          const i = r.int(0, b.length - 1)
          b[i] = nudge(r, b[i]!)
        } else if (kind === 2) writeFileSync(j, b.subarray(0, r.int(0, b.length)))
        else rmSync(j)
        if (kind < 2) writeFileSync(j, b)
        return `hot journal edit ${kind}`
      }
      writeFileSync(j, r.chance(0.5) ? Buffer.alloc(0) : Buffer.concat([Buffer.alloc(1), r.bytes(600)]))
      return 'journal not hot (empty, or first byte 0)'
    },
  },
  {
    name: 'side.kind',
    noOracle: true,
    apply: (d, r) => {
      const suffix = r.pick(['-wal', '-journal', '-shm'])
      const p = chainOf(d) + suffix
      rmSync(p, { force: true })
      if (r.chance(0.5)) mkdirSync(p)
      else execFileSync('mkfifo', [p])
      return `${suffix} not a regular file`
    },
  },
  {
    name: 'side.empty',
    apply: (d, r) => {
      const suffix = r.pick(['-wal', '-shm'])
      writeFileSync(chainOf(d) + suffix, r.chance(0.5) ? Buffer.alloc(0) : r.bytes(r.int(1, 40000)))
      return `${suffix} empty or garbage`
    },
  },
  {
    name: 'side.link',
    apply: (d, r) => {
      const chain = chainOf(d)
      const away = join(d, 'elsewhere')
      mkdirSync(away, { recursive: true })
      const kind = r.int(0, 3)
      if (kind === 0 || kind === 1) {
        // The chain is a link; its side files stay with the target. 1: a decoy -wal by the link.
        const real = join(away, 'chain.db')
        for (const s of ['', '-wal', '-journal']) if (existsSync(chain + s)) renameSync(chain + s, real + s)
        symlinkSync(real, chain)
        if (kind === 1)
          writeFileSync(`${chain}-wal`, existsSync(`${real}-wal`) ? r.bytes(100) : Buffer.alloc(0))
        return kind === 0 ? 'chain.db a link' : 'chain.db a link, decoy -wal by the link'
      }
      const suffix = r.pick(['-wal', '-journal', '-shm'])
      const wal = chain + suffix
      if (kind === 2) {
        // A side file (an existing one, or a garbage -shm) moved away and linked back.
        if (!existsSync(wal)) {
          if (suffix !== '-shm') return null
          writeFileSync(wal, r.bytes(r.int(0, 40000)))
        }
        renameSync(wal, join(away, 'kept'))
        symlinkSync(join(away, 'kept'), wal)
        return `${suffix} a link`
      }
      if (!existsSync(wal)) return null
      rmSync(wal)
      symlinkSync(join(away, 'nothing'), wal)
      return `${suffix} a link to nothing`
    },
  },
]
