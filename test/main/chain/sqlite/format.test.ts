// The one SQLite file-format module (src/main/chain/sqlite/), held to SQLite's own files: seeded
// generators of tables (random 64-bit rowids, every serial type, inserts and deletes that leave
// freeblocks and fragments, page sizes 512–65536, reserved bytes, WAL files of several commits,
// dropped tables that fill the freelist) are written by SQLite, and what the module reads of the
// bytes is compared with what SQLite says of them (rows, dbstat, PRAGMA freelist_count). Strict and
// tolerant decoding are the two modes of each function: on truncated and garbage bytes strict
// declines (Unsupported) and tolerant answers 0 / -1 / null, never throwing.
import Database from 'better-sqlite3'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { readFreelist } from '../../../../src/main/chain/sqlite/freelist'
import { freelistHead, headerPageSize, lockPage } from '../../../../src/main/chain/sqlite/header'
import {
  cellCount,
  cellGap,
  cellRowid,
  freeblocks,
  headerOffset,
  leafCellRowids,
  maxCells,
} from '../../../../src/main/chain/sqlite/page'
import { intOfType, readIntBig, serialSize } from '../../../../src/main/chain/sqlite/record'
import { decodeVarint, readVarint, varint, varintBig } from '../../../../src/main/chain/sqlite/varint'
import { frameChains, frameHeader, walHeader } from '../../../../src/main/chain/sqlite/wal'
import { Rng } from '../../reliability/chainkit'
import { rechecksumWal, walLayout } from '../../testing/wal-edit'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-sqlite-format-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let fileNo = 0
const freshPath = (): string => join(root, `t${fileNo++}.db`)

/** The varint encoding of file format §1.3, written independently of the decoder under test. */
function encodeVarint(v: bigint): Buffer {
  let u = BigInt.asUintN(64, v)
  if (u >> 56n !== 0n) {
    const out = Buffer.alloc(9)
    out[8] = Number(u & 0xffn)
    u >>= 8n
    for (let i = 7; i >= 0; i--) {
      out[i] = Number(u & 0x7fn) | 0x80
      u >>= 7n
    }
    return out
  }
  const bytes: number[] = []
  do {
    bytes.unshift(Number(u & 0x7fn))
    u >>= 7n
  } while (u !== 0n)
  for (let i = 0; i < bytes.length - 1; i++) bytes[i]! |= 0x80
  return Buffer.from(bytes)
}

const EDGES = [
  0n,
  1n,
  127n,
  128n,
  16383n,
  16384n,
  2n ** 53n - 1n,
  2n ** 53n,
  -1n,
  -(2n ** 63n),
  2n ** 63n - 1n,
]

/** Seeded signed 64-bit integers of every varint length. */
function int64s(rng: Rng, n: number): bigint[] {
  const out = [...EDGES]
  for (let i = 0; i < n; i++) {
    const bits = rng.int(1, 64)
    let v = 0n
    for (let b = 0; b < bits; b++) v = (v << 1n) | (rng.chance(0.5) ? 1n : 0n)
    out.push(BigInt.asIntN(64, v))
  }
  return out
}

interface Stat {
  pageno: number
  pagetype: string
  ncell: number
  unused: number
}

/** A private copy's page bytes and dbstat (dbstat wants a connection that may write). */
function pagesOf(path: string): { file: Buffer; pageSize: number; stat: Stat[] } {
  const db = new Database(path)
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number
    const stat = db
      .prepare("SELECT pageno, pagetype, ncell, unused FROM dbstat WHERE name = 't' ORDER BY path")
      .all() as Stat[]
    return { file: readFileSync(path), pageSize, stat }
  } finally {
    db.close()
  }
}

const page = (file: Buffer, pageSize: number, n: number): Buffer =>
  file.subarray((n - 1) * pageSize, n * pageSize)

describe('varints (§1.3): one decoder, strict and tolerant', () => {
  it('decodes every length of signed 64-bit value as the format encodes it', () => {
    for (const v of int64s(new Rng(331), 3000)) {
      const enc = encodeVarint(v)
      const buf = Buffer.concat([Buffer.from([0xff, 0xff]), enc, Buffer.from([0x80])])
      expect(decodeVarint(buf, 2, 2 + enc.length)).toBe(enc.length)
      expect(varintBig()).toBe(v)
      expect(varint.big === null).toBe(Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v)
      expect(readVarint(buf, 2)).toBe(enc.length)
      // Cut short: tolerant answers 0, strict declines.
      const cut = enc.subarray(0, enc.length - 1)
      expect(decodeVarint(buf, 2, 2 + cut.length)).toBe(0)
      expect(() => readVarint(cut, 0)).toThrow(Unsupported)
    }
  })

  it('never throws in tolerant mode on garbage, and never reads past its end', () => {
    const rng = new Rng(17)
    for (let k = 0; k < 5000; k++) {
      const buf = rng.bytes(rng.int(0, 12))
      const off = rng.int(-2, buf.length)
      const end = rng.int(0, buf.length)
      const n = decodeVarint(buf, off, end)
      expect(n).toBeGreaterThanOrEqual(0)
      if (n > 0) expect(off + n).toBeLessThanOrEqual(end)
    }
  })
})

describe('serial types (§2.1): strict declines what tolerant answers -1 for', () => {
  it('sizes agree in both modes on every type but the reserved ones', () => {
    const rng = new Rng(5)
    const types = [...Array.from({ length: 400 }, (_, i) => i), 0x7fffffff, 2 ** 40 + 13]
    for (let i = 0; i < 200; i++) types.push(rng.int(12, 2 ** 31))
    for (const t of types) {
      if (t === 10 || t === 11) {
        expect(serialSize(t, 'tolerant')).toBe(-1)
        expect(() => serialSize(t, 'strict')).toThrow(Unsupported)
        continue
      }
      const want = t >= 12 ? Math.floor((t - 12) / 2) : [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][t]
      expect(serialSize(t, 'tolerant')).toBe(want)
      expect(serialSize(t, 'strict')).toBe(want)
    }
    for (const t of [-1, -(2 ** 40)]) {
      expect(serialSize(t, 'tolerant')).toBe(-1)
      expect(() => serialSize(t)).toThrow(Unsupported)
    }
  })

  it('integers of every width read back as SQLite stored them; other types read as no integer', () => {
    const rng = new Rng(8)
    for (const v of int64s(rng, 2000)) {
      // The smallest serial type SQLite uses for v (vdbeaux.c sqlite3VdbeSerialType).
      const widths: [number, number][] = [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 6],
        [6, 8],
      ]
      const [t, w] = widths.find(([, w]) => v >= -(2n ** BigInt(8 * w - 1)) && v < 2n ** BigInt(8 * w - 1))!
      const b = Buffer.alloc(w)
      for (let i = 0; i < w; i++) b[i] = Number((BigInt.asUintN(8 * w, v) >> BigInt(8 * (w - 1 - i))) & 0xffn)
      expect(readIntBig(b, 0, t)).toBe(v)
      expect(intOfType(b, 0, t)).toBe(v)
    }
    expect(intOfType(Buffer.alloc(8), 0, 8)).toBe(0n)
    expect(intOfType(Buffer.alloc(8), 0, 9)).toBe(1n)
    for (const t of [0, 7, 10, 11, 12, 13, 141]) expect(intOfType(Buffer.alloc(64), 0, t)).toBeNull()
  })
})

/** A table of random rowids (every varint length) and values of every serial type, with deletions. */
function randomTable(seed: number, pageSize: number, reserved: number): string {
  const rng = new Rng(seed)
  const path = freshPath()
  const db = new Database(path)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma('user_version = 1')
  db.close()
  if (reserved > 0) {
    // Page 1 holds no cell yet: its content area starts at the usable size; SQLite keeps the reserve.
    const f = readFileSync(path)
    f[20] = reserved
    f.writeUInt16BE((pageSize - reserved) & 0xffff, 105)
    writeFileSync(path, f)
  }
  const w = new Database(path)
  w.pragma('secure_delete = OFF')
  w.exec('CREATE TABLE t (a, b)')
  const ins = w.prepare('INSERT OR IGNORE INTO t (rowid, a, b) VALUES (?, ?, ?)')
  const values = (): unknown => {
    switch (rng.int(0, 5)) {
      case 0:
        return null
      case 1:
        return int64s(rng, 1).pop()!
      case 2:
        return rng.next() * 1e6
      case 3:
        return rng.hex(rng.int(0, 300))
      case 4:
        return rng.bytes(rng.int(0, pageSize > 1024 ? 3000 : 700))
      default:
        return rng.int(0, 1)
    }
  }
  w.transaction(() => {
    const ids = int64s(rng, rng.int(80, 300))
    for (const id of ids) ins.run(id, values(), values())
  })()
  // Deletions and shrinking updates: freeblocks and fragments on the leaves.
  const ids = w.prepare('SELECT rowid FROM t').safeIntegers(true).pluck().all() as bigint[]
  w.transaction(() => {
    for (const id of ids) {
      if (rng.chance(0.3)) w.prepare('DELETE FROM t WHERE rowid = ?').run(id)
      else if (rng.chance(0.2))
        w.prepare('UPDATE t SET b = ? WHERE rowid = ?').run(rng.hex(rng.int(0, 8)), id)
    }
  })()
  w.close()
  return path
}

const SHAPES: [number, number][] = [
  [512, 0],
  [1024, 0],
  [4096, 0],
  [4096, 32],
  [8192, 16],
  [65536, 0],
]

describe('b-tree pages (§1.6) against dbstat and the rows SQLite reads', () => {
  it('lists every table leaf cell with the rowid SQLite reads, in order', () => {
    SHAPES.forEach(([pageSize, reserved], i) => {
      const path = randomTable(100 + i, pageSize, reserved)
      const { file, stat } = pagesOf(path)
      const usable = pageSize - reserved
      const db = new Database(path, { readonly: true })
      const want = db.prepare('SELECT rowid FROM t').safeIntegers(true).pluck().all() as bigint[]
      db.close()
      const got: bigint[] = []
      for (const s of stat.filter((x) => x.pagetype === 'leaf')) {
        const p = page(file, pageSize, s.pageno)
        const h = headerOffset(s.pageno)
        expect(cellCount(p, s.pageno, pageSize, -1, 'tolerant')).toBe(s.ncell)
        const rowids = leafCellRowids(p, h, usable)
        // Strict reading of each cell gives the same rowid.
        for (let c = 0; c < s.ncell; c++) expect(cellRowid(p, p.readUInt16BE(h + 8 + 2 * c))).toBe(rowids[c])
        got.push(...rowids)
      }
      expect(got, `page size ${pageSize}`).toEqual(want)
    })
  })

  it('finds the free space dbstat counts: the gap, the freeblocks and the fragments', () => {
    SHAPES.forEach(([pageSize, reserved], i) => {
      const path = randomTable(200 + i, pageSize, reserved)
      const { file, stat } = pagesOf(path)
      const usable = pageSize - reserved
      let withFreeblocks = 0
      for (const s of stat.filter((x) => x.pagetype === 'leaf' || x.pagetype === 'internal')) {
        const p = page(file, pageSize, s.pageno)
        const h = headerOffset(s.pageno)
        const gap = cellGap(p, 0, h, usable)
        const blocks = freeblocks(p, 0, h, usable)
        if (blocks.length > 0) withFreeblocks++
        const free =
          (gap ? gap.to - gap.from : 0) + blocks.reduce((n, b) => n + (b.to - b.from), 0) + p[h + 7]!
        expect(free, `page ${s.pageno} of ${pageSize}`).toBe(s.unused)
      }
      expect(withFreeblocks, `page size ${pageSize}`).toBeGreaterThan(0)
    })
  })

  it('strict cell counts decline what SQLite calls corrupt; tolerant ones read the bytes', () => {
    const rng = new Rng(44)
    for (let k = 0; k < 500; k++) {
      const pageSize = rng.pick([512, 1024, 4096, 65536])
      const p = Buffer.alloc(pageSize)
      const n = rng.int(1, 4)
      const count = rng.pick([0, 1, maxCells(pageSize), maxCells(pageSize) + 1, rng.int(0, 65535)])
      p.writeUInt16BE(count, headerOffset(n) + 3)
      expect(cellCount(p, n, pageSize, -1, 'tolerant')).toBe(count)
      const root = rng.chance(0.5) ? n : -1
      const corrupt = count > maxCells(pageSize) || (count === 0 && root !== n)
      if (corrupt) expect(() => cellCount(p, n, pageSize, root)).toThrow(Unsupported)
      else expect(cellCount(p, n, pageSize, root)).toBe(count)
    }
  })

  it('tolerant page reading never throws on garbage pages', () => {
    const rng = new Rng(99)
    for (let k = 0; k < 300; k++) {
      const pageSize = rng.pick([512, 1024, 4096])
      const p = rng.bytes(pageSize)
      p[0] = rng.pick([0x02, 0x05, 0x0a, 0x0d, p[0]!])
      const usable = pageSize - rng.int(0, 64)
      expect(() => {
        cellGap(p, 0, 0, usable)
        for (const b of freeblocks(p, 0, 0, usable)) expect(b.to).toBeLessThanOrEqual(usable)
        leafCellRowids(p, 0, usable)
        cellRowid(p, rng.int(0, pageSize), 'tolerant', usable)
      }).not.toThrow()
    }
  })
})

describe('the freelist (§1.5) and the lock-byte page (§1.4)', () => {
  it('reads as many free pages as SQLite counts', () => {
    for (const pageSize of [512, 4096]) {
      const path = freshPath()
      const db = new Database(path)
      db.pragma(`page_size = ${pageSize}`)
      db.exec(
        'CREATE TABLE junk (b BLOB); WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 2000) INSERT INTO junk SELECT randomblob(300) FROM r; DROP TABLE junk',
      )
      const count = db.pragma('freelist_count', { simple: true }) as number
      const pages = db.pragma('page_count', { simple: true }) as number
      db.close()
      const file = readFileSync(path)
      const view = (n: number): Buffer | null =>
        n >= 1 && n <= pages ? Buffer.from(page(file, pageSize, n)) : null
      expect(freelistHead(file).count).toBe(count)
      const fl = readFreelist(view, pageSize, pages)
      expect(fl.trunks.size + fl.leaves.size).toBe(count)
      expect(fl.trunks.size).toBeGreaterThan(pageSize === 512 ? 1 : 0)
    }
  })

  it('ends a trunk cycle or an absurd count without failing', () => {
    const pageSize = 1024
    const pages = 8
    const file = Buffer.alloc(pageSize * pages)
    file.writeUInt32BE(3, 32)
    file.writeUInt32BE(1000, 36)
    // Trunk 3 → trunk 4 → trunk 3 again; trunk 4 claims more leaves than a page holds.
    file.writeUInt32BE(4, 2 * pageSize)
    file.writeUInt32BE(1, 2 * pageSize + 4)
    file.writeUInt32BE(5, 2 * pageSize + 8)
    file.writeUInt32BE(3, 3 * pageSize)
    file.writeUInt32BE(0xffff, 3 * pageSize + 4)
    const view = (n: number): Buffer | null => (n >= 1 && n <= pages ? page(file, pageSize, n) : null)
    const fl = readFreelist(view, pageSize, pages)
    expect([...fl.trunks.keys()]).toEqual([3, 4])
    expect([...fl.leaves]).toEqual([5])
  })

  it('reads the header page size as §1.3 defines it, for every stored value', () => {
    // "A power of two between 512 and 32768 inclusive, or the value 1 representing 65536."
    const valid = new Set([1, 512, 1024, 2048, 4096, 8192, 16384, 32768])
    const h = Buffer.alloc(100)
    for (let raw = 0; raw < 65536; raw++) {
      h.writeUInt16BE(raw, 16)
      expect(headerPageSize(h)).toBe(valid.has(raw) ? (raw === 1 ? 65536 : raw) : 0)
    }
  })

  it('places the lock-byte page at 2^30 for every page size', () => {
    for (let ps = 512; ps <= 65536; ps *= 2) {
      const n = lockPage(ps)
      expect((n - 1) * ps <= 2 ** 30 && 2 ** 30 < n * ps).toBe(true)
    }
  })
})

describe('the WAL (§4): header, checksums and frames of SQLite-written logs', () => {
  /** A WAL of `commits` transactions, copied while the writer still holds it. */
  function walOf(pageSize: number, commits: number): Buffer {
    const path = freshPath()
    const db = new Database(path)
    db.pragma(`page_size = ${pageSize}`)
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    db.exec('CREATE TABLE t (a)')
    const ins = db.prepare('INSERT INTO t VALUES (randomblob(?))')
    for (let c = 0; c < commits; c++) db.transaction(() => ins.run(200 + c * 50))()
    const wal = readFileSync(`${path}-wal`)
    db.close()
    return wal
  }

  it('accepts every frame SQLite wrote, and no byte can change unnoticed', () => {
    for (const [pageSize, commits] of [
      [512, 6],
      [4096, 4],
      [65536, 2],
    ] as const) {
      const wal = walOf(pageSize, commits)
      const hdr = walHeader(wal)
      expect(hdr.valid).toBe(true)
      expect(hdr.pageSize).toBe(pageSize)
      const layout = walLayout(wal)!
      const sum = hdr.sum
      let commitFrames = 0
      for (const f of layout.frames) {
        const frame = wal.subarray(f.at, f.at + 24 + pageSize)
        expect(frameChains(frame, pageSize, hdr, sum)).toBe(true)
        if (frameHeader(frame).commitSize !== 0) commitFrames++
      }
      expect(commitFrames).toBe(commits + 1)
      // Any flipped byte of a frame (header words or image) breaks its checksum chain there.
      const rng = new Rng(pageSize)
      for (let k = 0; k < 40; k++) {
        const bad = Buffer.from(wal)
        const f = rng.pick(layout.frames)
        const at = f.at + rng.pick([rng.int(0, 7), rng.int(24, 24 + pageSize - 1)])
        bad[at] = bad[at]! ^ (1 << rng.int(0, 7))
        const h = walHeader(bad)
        const s = h.sum
        let ok = true
        for (const g of layout.frames) {
          ok = frameChains(bad.subarray(g.at, g.at + 24 + pageSize), pageSize, h, s)
          if (!ok) {
            expect(g.at).toBe(f.at)
            break
          }
        }
        expect(ok).toBe(false)
      }
    }
  })

  it('a header of another version: declined strictly, read tolerantly', () => {
    const wal = walOf(1024, 2)
    wal.writeUInt32BE(3007001, 4)
    rechecksumWal(wal)
    expect(() => walHeader(wal, 'strict')).toThrow(Unsupported)
    const h = walHeader(wal, 'tolerant')
    expect(h.valid).toBe(true)
    expect(h.version).toBe(3007001)
    // A header whose checksum fails is no header in either mode (SQLite reads the WAL as empty).
    wal[25] = wal[25]! ^ 1
    expect(walHeader(wal, 'strict').valid).toBe(false)
    expect(walHeader(wal, 'tolerant').valid).toBe(false)
  })
})
