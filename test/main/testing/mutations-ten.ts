// Test helper: round 10's mutations of the differential harness (./mutations.ts holds the first set).
// - wal.pagesize: the database header's page size and the -wal's disagree (file format §1.3.2, §4.1
//   offset 8). SQLite opens the file at its header's size, reads each WAL frame at the WAL header's
//   size (wal.c sqlite3WalReadFrame reads min(both) bytes) and starts again at page 1's size when
//   it differs (btree.c lockBtree): the WAL re-laid at another size (images cut or zero-padded,
//   checksums redone), the file's page-size field changed under an intact WAL, or both with the
//   WAL's page-1 image agreeing with its own header.
// - overflow.shared: a leaf cell's first overflow page pointer (§1.6) aimed at another cell's
//   chain, at a page of its own chain further on, or at a leaf or interior page of the table: two
//   records sharing overflow pages, or a chain that loops.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Rng } from '../reliability/chainkit'
import { localPayload } from '../../../src/main/chain/sqlite/page'
import { decodeVarint, varint } from '../../../src/main/chain/sqlite/varint'
import { chainOf, editPage, type BasePages, type Mutation } from './mutations'
import { rechecksumWal, walLayout } from './wal-edit'

/** A page size as the two-byte header field stores it (§1.3.2: 65536 is stored as 1). */
const sizeField = (size: number): number => (size === 65536 ? 1 : size)

/** Another power of two in 512..65536 near `size`. */
function otherSize(r: Rng, size: number): number {
  const options = [size / 2, size * 2, size / 4, size * 4, 512, 65536].filter(
    (s) => s >= 512 && s <= 65536 && s !== size,
  )
  return r.pick(options)
}

/** The WAL `wal` re-laid with frames of `to` bytes: each image cut or zero-padded; checksums redone. */
function relaid(wal: Buffer, from: number, to: number): Buffer {
  const frames = Math.floor((wal.length - 32) / (24 + from))
  const out = Buffer.alloc(32 + frames * (24 + to))
  wal.copy(out, 0, 0, 32)
  out.writeUInt32BE(to, 8)
  for (let i = 0; i < frames; i++) {
    const a = 32 + i * (24 + from)
    const b = 32 + i * (24 + to)
    wal.copy(out, b, a, a + 24 + Math.min(from, to))
  }
  rechecksumWal(out)
  return out
}

/** The cells of leaf page `p` (page `n`) whose payload spills: the offset of their overflow pointer. */
function spilling(p: Buffer, n: number, usable: number): number[] {
  const h = n === 1 ? 100 : 0
  const out: number[] = []
  const count = p.readUInt16BE(h + 3)
  for (let i = 0; i < count && h + 8 + 2 * i + 2 <= p.length; i++) {
    const at = p.readUInt16BE(h + 8 + 2 * i)
    const a = decodeVarint(p, at, p.length)
    if (a <= 0) continue
    const size = varint.value
    const b = decodeVarint(p, at + a, p.length)
    if (b <= 0) continue
    const local = localPayload(size, usable)
    const ptr = at + a + b + local
    if (local < size && ptr + 4 <= usable) out.push(ptr)
  }
  return out
}

export const TEN_MUTATIONS: Mutation[] = [
  {
    name: 'wal.pagesize',
    apply: (d, r, b: BasePages) => {
      const path = `${chainOf(d)}-wal`
      if (!existsSync(path)) return null
      const wal = readFileSync(path)
      const l = walLayout(wal)
      if (!l || l.frames.length === 0) return null
      const kind = r.int(0, 2)
      const to = otherSize(r, l.pageSize)
      if (kind === 1) {
        const what = editPage(d, b.pageSize, 1, (p) => {
          p.writeUInt16BE(sizeField(to), 16)
          return `file header page size ${b.pageSize} → ${to}, WAL at ${l.pageSize}`
        })
        return what
      }
      const out = relaid(wal, l.pageSize, to)
      if (kind === 2) {
        // Every page-1 image in the WAL says the WAL's new size too.
        const nl = walLayout(out)!
        for (const f of nl.frames) if (f.page === 1) out.writeUInt16BE(sizeField(to), f.at + 24 + 16)
        rechecksumWal(out)
      }
      writeFileSync(path, out)
      return `WAL re-laid at ${to} (database ${b.pageSize})${kind === 2 ? ', its page-1 images saying so' : ''}`
    },
  },
  {
    name: 'overflow.shared',
    apply: (d, r, b: BasePages) => {
      if (b.overflow.length === 0) return null
      const file = readFileSync(chainOf(d))
      const usable = b.pageSize - file[20]!
      const n = r.pick(b.leaf)
      return editPage(d, b.pageSize, n, (p) => {
        const ptrs = spilling(p, n, usable)
        if (ptrs.length === 0) return null
        const at = r.pick(ptrs)
        const was = p.readUInt32BE(at)
        const others = ptrs.map((x) => p.readUInt32BE(x)).filter((x) => x !== was)
        const to = r.pick([
          ...(others.length > 0 ? [r.pick(others)] : []),
          r.pick(b.overflow),
          was + 1,
          r.pick(b.leaf),
          ...(b.internal.length > 0 ? [r.pick(b.internal)] : []),
          n,
        ])
        p.writeUInt32BE(to >>> 0, at)
        return `leaf ${n}: a cell's first overflow page ${was} → ${to}`
      })
    },
  },
]
