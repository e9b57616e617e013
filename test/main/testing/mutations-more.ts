// Test helper: more of the differential harness's mutations (./mutations.ts holds the first set).
// Record serial types changed to others of the same size (text ↔ blob, REAL ↔ 64-bit integer, the
// zero-size types incl. the reserved 10 and 11), values at the edges (NaN, −0.0, integer minima and
// maxima of every width), the text encoding and other page-1 fields set to each value SQLite knows,
// b-tree page headers (freeblock chains, fragmented bytes, cell content area; page 1's header at
// offset 100), child pointers that repeat or come back to an ancestor, and schemas where `chain` is a
// view, an extra table of another case, or a column of another affinity. Seeded, like the first set.
import Database from 'better-sqlite3'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Rng } from '../reliability/chainkit'
import { STORED_SCHEMA } from '../../../src/main/chain/schema'
import { chainOf, editPage, type BasePages, type Mutation } from './mutations'
import { rechecksumWal, walLayout } from './wal-edit'

const hdr = (n: number): number => (n === 1 ? 100 : 0)

/** A varint at `o` (§1.3): its value (as a number: record headers are small) and its length. */
function varintAt(b: Buffer, o: number): [number, number] {
  let v = 0
  for (let i = 0; i < 8; i++) {
    const x = b[o + i]!
    v = v * 128 + (x & 0x7f)
    if (!(x & 0x80)) return [v, i + 1]
  }
  return [v * 256 + b[o + 8]!, 9]
}

interface RecordField {
  /** Offset in the page of the serial type varint's last byte. */
  typeLast: number
  type: number
  /** Offset in the page of the value, or -1 when it lies past the cell's local part. */
  value: number
}

/** The record fields of a leaf cell at `at`, as far as its local part holds them. */
function recordFields(page: Buffer, at: number, usable: number): RecordField[] | null {
  const [size, n1] = varintAt(page, at)
  const [, n2] = varintAt(page, at + n1)
  const start = at + n1 + n2
  // §1.6: the local part of a table leaf's payload.
  const maxLocal = usable - 35
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23
  let local = size
  if (size > maxLocal) {
    local = minLocal + ((size - minLocal) % (usable - 4))
    if (local > maxLocal) local = minLocal
  }
  if (start + local > page.length) return null
  const [headerSize, hn] = varintAt(page, start)
  if (headerSize > local || headerSize < hn) return null
  const out: RecordField[] = []
  let hp = start + hn
  let dp = start + headerSize
  while (hp < start + headerSize) {
    const [t, tn] = varintAt(page, hp)
    const len = t >= 12 ? (t - 12) >> 1 : [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][t]!
    out.push({ typeLast: hp + tn - 1, type: t, value: dp + len <= start + local ? dp : -1 })
    hp += tn
    dp += len
  }
  return out
}

/** A leaf page of the base and one of its cells' record fields. */
function pickRecord(
  r: Rng,
  b: BasePages,
  file: Buffer,
): { page: Buffer; n: number; fields: RecordField[] } | null {
  const leaves = b.leaf.filter((n) => n * b.pageSize <= file.length)
  if (leaves.length === 0) return null
  const n = r.pick(leaves)
  const page = file.subarray((n - 1) * b.pageSize, n * b.pageSize)
  const cells = page.readUInt16BE(hdr(n) + 3)
  if (cells === 0) return null
  const at = page.readUInt16BE(hdr(n) + 8 + 2 * r.int(0, cells - 1))
  const fields = at < page.length ? recordFields(page, at, b.pageSize - file[20]!) : null
  return fields && fields.length > 0 ? { page, n, fields } : null
}

const INT_EDGES: Record<number, Buffer[]> = {
  1: [Buffer.from([0x80]), Buffer.from([0x7f]), Buffer.from([0xff])],
  2: [Buffer.from([0x80, 0]), Buffer.from([0x7f, 0xff])],
  3: [Buffer.from([0x80, 0, 0]), Buffer.from([0x7f, 0xff, 0xff])],
  4: [Buffer.from([0x80, 0, 0, 0]), Buffer.from([0x7f, 0xff, 0xff, 0xff])],
  5: [Buffer.from([0x80, 0, 0, 0, 0, 0]), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff])],
  6: [
    Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0]),
    Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    Buffer.from([0, 0x20, 0, 0, 0, 0, 0, 1]),
    Buffer.from([0xff, 0xdf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
  ],
}

function real(v: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeDoubleBE(v)
  return b
}

const REAL_EDGES: Buffer[] = [
  real(NaN),
  Buffer.from([0x7f, 0xf8, 0, 0, 0, 0, 0, 1]),
  Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
  real(-0),
  real(Infinity),
  real(-Infinity),
  real(2 ** 63),
  real(5e-324),
]

/** Schema texts for the chain table beyond ./mutations.ts's: affinities, constraints, STRICT. */
function moreSchemas(): [string, string][] {
  const ref = STORED_SCHEMA['chain']!
  return [
    ['text-ts', ref.replace('timestamp_ns INTEGER', 'timestamp_ns TEXT')],
    ['numeric-ts', ref.replace('timestamp_ns INTEGER', 'timestamp_ns NUMERIC')],
    ['float-ts', ref.replace('timestamp_ns INTEGER', 'timestamp_ns FLOAT')],
    ['blob-body', ref.replace(/canonical_body \w+/, 'canonical_body BLOB')],
    ['real-body', ref.replace(/canonical_body \w+/, 'canonical_body REAL')],
    ['int-hash', ref.replace('hmac_hash TEXT', 'hmac_hash INT')],
    ['no-type', ref.replace('span_name TEXT', 'span_name')],
    ['collate', ref.replace('hmac_hash TEXT', 'hmac_hash TEXT COLLATE NOCASE')],
    ['check', ref.replace(/\n\)$/, ',\n    CHECK (seq > 0)\n)')],
    ['strict', ref.replace(/\)$/, ') STRICT')],
    [
      'primary-key-table',
      ref.replace(' PRIMARY KEY AUTOINCREMENT', '').replace(/\n\)$/, ',\n    PRIMARY KEY (seq)\n)'),
    ],
    [
      'primary-key-table-desc',
      ref.replace(' PRIMARY KEY AUTOINCREMENT', '').replace(/\n\)$/, ',\n    PRIMARY KEY (seq DESC)\n)'),
    ],
    ['unique-seq', ref.replace('PRIMARY KEY AUTOINCREMENT', 'UNIQUE')],
    ['temp-name', ref.replace('CREATE TABLE chain', 'CREATE TABLE main.chain')],
    ['quoted-name', ref.replace('CREATE TABLE chain', 'CREATE TABLE "chain"')],
    ['if-not-exists', ref.replace('CREATE TABLE chain', 'CREATE TABLE IF NOT EXISTS chain')],
  ]
}

function onSchema(dir: string, run: (db: Database.Database) => void): void {
  const db = new Database(chainOf(dir))
  try {
    // better-sqlite3 opens in SQLite's defensive mode, which forbids writable_schema.
    db.unsafeMode(true)
    run(db)
  } finally {
    db.close()
  }
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`

export const MORE_MUTATIONS: Mutation[] = [
  // Serial types (§2.1) changed to another of the same content size: the record stays consistent,
  // only the value's class or meaning changes.
  {
    name: 'record.type',
    apply: (d, r, b) => {
      const path = chainOf(d)
      const file = readFileSync(path)
      const rec = pickRecord(r, b, file)
      if (!rec) return null
      const f = r.pick(rec.fields)
      const { page } = rec
      const last = page[f.typeLast]!
      let to: number
      if (f.type >= 12)
        to = f.type ^ 1 // text ↔ blob, same length
      else if (f.type === 6 || f.type === 7) to = f.type === 6 ? 7 : 6
      else if (f.type === 0 || f.type >= 8) to = r.pick([0, 8, 9, 10, 11].filter((t) => t !== f.type))
      else return null
      page[f.typeLast] = (last & 0x80) | ((last & 0x7f) ^ (f.type & 0x7f) ^ (to & 0x7f))
      writeFileSync(path, file)
      return `leaf ${rec.n}: serial type ${f.type} → ${to}`
    },
  },
  // Values at the edges of their type: integer minima/maxima of every width, NaN (SQLite reads a
  // NaN REAL as NULL), −0.0, infinities, subnormals.
  {
    name: 'record.value',
    apply: (d, r, b) => {
      const path = chainOf(d)
      const file = readFileSync(path)
      const rec = pickRecord(r, b, file)
      if (!rec) return null
      const f = r.pick(rec.fields)
      if (f.value < 0) return null
      let v: Buffer
      let type = f.type
      if (f.type >= 1 && f.type <= 6) v = r.pick(INT_EDGES[f.type]!)
      else if (f.type === 7) v = r.pick(REAL_EDGES)
      else return null
      if (f.type === 6 && r.chance(0.5)) {
        // The 8-byte integer read as a REAL holding an edge value.
        type = 7
        v = r.pick(REAL_EDGES)
        rec.page[f.typeLast] = 7
      }
      v.copy(rec.page, f.value)
      writeFileSync(path, file)
      return `leaf ${rec.n}: value of type ${type} set to ${v.toString('hex')}`
    },
  },
  // Page-1 fields set to every value SQLite gives a meaning (§1.3): text encoding 1..3 (UTF-16 texts
  // must be read as UTF-16, odd lengths included), schema format 1..4, reserved bytes, payload
  // fractions, page size 512..65536 (1 for 65536), the write/read versions.
  {
    name: 'header.value',
    apply: (d, r, b) =>
      editPage(d, b.pageSize, 1, (p) => {
        const kind = r.int(0, 5)
        if (kind === 0) {
          const v = r.pick([0, 1, 2, 3, 4])
          p.writeUInt32BE(v, 56)
          return `text encoding ${v}`
        }
        if (kind === 1) {
          const v = r.pick([0, 1, 2, 3, 4, 5])
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
          const v = r.pick([1, 512, 1024, 2048, 4096, 8192, 16384, 32768, 0, 3, 256])
          p.writeUInt16BE(v, 16)
          return `page size field ${v}`
        }
        const at = r.pick([18, 19])
        p[at] = r.pick([0, 1, 2, 3])
        return `file format byte ${at} = ${p[at]}`
      }),
  },
  // B-tree page headers (§1.6) on any page of the chain table, page 1's at offset 100 included:
  // freeblock chains that loop or run past the page, fragmented bytes, the cell content area.
  {
    name: 'page.header',
    apply: (d, r, b) => {
      const n = r.chance(0.2) ? 1 : r.pick([...b.leaf, ...b.internal])
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const cells = p.readUInt16BE(h + 3)
        const ptrEnd = h + (p[h] === 0x05 || p[h] === 0x02 ? 12 : 8) + 2 * cells
        const kind = r.int(0, 4)
        if (kind === 0) {
          const at = r.pick([
            0,
            1,
            h,
            ptrEnd - 2,
            p.length - 2,
            p.length,
            0xffff,
            r.int(ptrEnd, p.length - 4),
          ])
          p.writeUInt16BE(at & 0xffff, h + 1)
          // A freeblock there pointing at itself (a loop) or past the page.
          if (at >= ptrEnd && at + 4 <= p.length) {
            p.writeUInt16BE(r.pick([at, 0, p.length, at + 4]) & 0xffff, at)
            p.writeUInt16BE(r.pick([4, 0, 1, 0xffff]), at + 2)
          }
          return `freeblock chain of ${n} at ${at}`
        }
        if (kind === 1) {
          p[h + 7] = r.pick([0, 1, 60, 61, 255])
          return `fragmented bytes of ${n} = ${p[h + 7]}`
        }
        if (kind === 2) {
          const v = r.pick([0, 1, h, ptrEnd - 1, ptrEnd, p.length - 1, p.length & 0xffff])
          p.writeUInt16BE(v, h + 5)
          return `cell content area of ${n} = ${v}`
        }
        if (kind === 3 && cells > 0) {
          // A cell pointer into the header or the pointer array, or at another cell.
          const slot = h + (p[h] === 0x05 || p[h] === 0x02 ? 12 : 8) + 2 * r.int(0, cells - 1)
          const other = p.readUInt16BE(h + (p[h] === 0x05 ? 12 : 8) + 2 * r.int(0, cells - 1))
          const v = r.pick([h, h + 1, ptrEnd - 2, other, other + 1, 0])
          p.writeUInt16BE(v, slot)
          return `cell pointer of ${n} = ${v}`
        }
        p[h] = r.pick([0x0d, 0x05, 0x0a, 0x02])
        return `page type of ${n} = ${p[h]}`
      })
    },
  },
  // Interior child pointers (§1.6) that repeat a sibling, point back at the page itself or the root
  // (a cycle), at page 1, or at a freelist trunk.
  {
    name: 'btree.cycle',
    apply: (d, r, b) => {
      if (b.internal.length === 0) return null
      const n = r.pick(b.internal)
      const file = readFileSync(chainOf(d))
      const trunk = file.readUInt32BE(32)
      const root = Math.min(...b.internal)
      return editPage(d, b.pageSize, n, (p) => {
        const h = hdr(n)
        const cells = p.readUInt16BE(h + 3)
        const slots = [h + 8]
        for (let i = 0; i < cells; i++) {
          const at = p.readUInt16BE(h + 12 + 2 * i)
          if (at + 4 <= p.length) slots.push(at)
        }
        const at = r.pick(slots)
        const sibling = p.readUInt32BE(r.pick(slots))
        const to = r.pick([
          n,
          root,
          1,
          sibling,
          trunk > 1 ? trunk : sibling,
          r.pick(b.overflow.length ? b.overflow : [n]),
        ])
        p.writeUInt32BE(to, at)
        return `child of ${n} (${at === h + 8 ? 'right' : `cell at ${at}`}) → ${to}`
      })
    },
  },
  // The schema: chain a view over the real table (all rows, or some), an extra table whose name
  // differs only in case, other affinities and constraints for the same stored rows.
  {
    name: 'schema.more',
    apply: (d, r) => {
      const kind = r.int(0, 3)
      if (kind === 0 || kind === 1) {
        onSchema(d, (db) => {
          db.exec('ALTER TABLE chain RENAME TO chain_real')
          db.exec(
            kind === 0
              ? 'CREATE VIEW chain AS SELECT * FROM chain_real'
              : 'CREATE VIEW chain AS SELECT * FROM chain_real WHERE seq % 7 <> 3',
          )
        })
        return kind === 0 ? 'chain a view of all rows' : 'chain a view of some rows'
      }
      if (kind === 2) {
        const name = r.pick(['CHAIN', 'Chain', 'chaiN'])
        onSchema(d, (db) => {
          db.pragma('writable_schema = ON')
          const row = db.prepare("SELECT rootpage, sql FROM sqlite_master WHERE name = 'chain'").get() as {
            rootpage: number
            sql: string
          }
          db.exec(
            `INSERT INTO sqlite_master VALUES ('table', ${q(name)}, ${q(name)}, ${row.rootpage}, ${q(row.sql.replace('chain', name))})`,
          )
        })
        return `a second table named ${name}`
      }
      const [label, sql] = r.pick(moreSchemas())
      onSchema(d, (db) => {
        db.pragma('writable_schema = ON')
        db.exec(`UPDATE sqlite_master SET sql = ${q(sql)} WHERE name = 'chain'`)
      })
      return label
    },
  },
  // WAL frames past the last commit (§4.3–4.4): copies of the last commit's frames, edited, appended
  // uncommitted, committed, committed with a checksum broken, for a page beyond the database's size,
  // or the header of a new generation (salts changed) over the old frames.
  {
    name: 'wal.tail',
    apply: (d, r) => {
      const path = `${chainOf(d)}-wal`
      if (!existsSync(path)) return null
      const wal = readFileSync(path)
      const l = walLayout(wal)
      if (!l || l.frames.length === 0) return null
      const kind = r.int(0, 4)
      if (kind === 4) {
        wal.writeUInt32BE((wal.readUInt32BE(16) + 1) >>> 0, 16)
        wal.writeUInt32BE((wal.readUInt32BE(12) + 1) >>> 0, 12)
        if (r.chance(0.5)) rechecksumWal(wal)
        writeFileSync(path, wal)
        return 'a new generation header over the old frames'
      }
      const lastCommit = l.frames.reduce((k, f, i) => (f.commit ? i : k), -1)
      const from = l.frames.findIndex((f, i) => i > lastCommit - 3 && i <= lastCommit)
      if (lastCommit < 0 || from < 0) return null
      const size = l.frames[lastCommit]!.commit
      const tail = l.frames.slice(from, lastCommit + 1).map((f) => {
        const b = Buffer.from(wal.subarray(f.at, f.at + 24 + l.pageSize))
        b.writeUInt32BE(0, 4)
        const i = 24 + r.int(0, l.pageSize - 1)
        if (r.chance(0.7)) b[i] = (b[i]! + 1) & 0xff
        return b
      })
      if (kind === 3) tail[tail.length - 1]!.writeUInt32BE(size + r.int(1, 5), 0)
      if (kind >= 1) tail[tail.length - 1]!.writeUInt32BE(size, 4)
      const out = Buffer.concat([wal.subarray(0, 32 + l.frames.length * (24 + l.pageSize)), ...tail])
      rechecksumWal(out)
      if (kind === 2) {
        const f = walLayout(out)!.frames.at(-tail.length + r.int(0, tail.length - 1))!
        const i = f.at + 16 + r.int(0, 7)
        out[i] = out[i]! ^ 0x10
      }
      writeFileSync(path, out)
      return `${tail.length} frames appended: ${['uncommitted', 'committed', 'committed, a checksum broken', 'committed, one for a page beyond the size'][kind]}`
    },
  },
  // Hot journal headers (§3): record count, nonce, initial size, sector and page size.
  {
    name: 'journal.header',
    apply: (d, r) => {
      const path = `${chainOf(d)}-journal`
      if (!existsSync(path)) return null
      const j = readFileSync(path)
      if (j.length < 28) return null
      const at = r.pick([8, 12, 16, 20, 24])
      const was = j.readUInt32BE(at)
      const v = r.pick([0, 0xffffffff, was + 1, Math.max(0, was - 1), was * 2, 512, 65536]) >>> 0
      j.writeUInt32BE(v, at)
      writeFileSync(path, r.chance(0.2) ? j.subarray(0, r.int(28, j.length)) : j)
      return `journal header field ${at}: ${was} → ${v}`
    },
  },
  // A chain of K interior pages with no cells, each's right child the next, spliced in above the
  // root's rightmost child (§1.6): trees deeper than SQLite's cursor goes (btree.c moveToChild,
  // BTCURSOR_MAX_DEPTH) and interior pages without cells. Rollback-mode files only (the pages are
  // appended to the file).
  {
    name: 'btree.deep',
    apply: (d, r, b) => {
      const path = chainOf(d)
      if (existsSync(`${path}-wal`) || existsSync(`${path}-journal`) || b.internal.length === 0) return null
      const db = new Database(path, { readonly: true })
      let root: number
      try {
        root = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'chain'").pluck().get() as number
      } finally {
        db.close()
      }
      const file = readFileSync(path)
      const ps = b.pageSize
      const n = file.length / ps
      const h = hdr(root)
      const page = file.subarray((root - 1) * ps, root * ps)
      if (page[h] !== 0x05) return null
      const k = r.pick([1, 2, 5, 16, 17, 18, 19, 20, 25])
      const added = Buffer.alloc(k * ps)
      for (let j = 0; j < k; j++) {
        const at = j * ps
        added[at] = 0x05
        added.writeUInt16BE(ps & 0xffff, at + 5)
        added.writeUInt32BE(j + 1 < k ? n + j + 2 : page.readUInt32BE(h + 8), at + 8)
      }
      page.writeUInt32BE(n + 1, h + 8)
      const out = Buffer.concat([file, added])
      out.writeUInt32BE(n + k, 28)
      writeFileSync(path, out)
      return `${k} empty interior pages above the root's right child`
    },
  },
]
