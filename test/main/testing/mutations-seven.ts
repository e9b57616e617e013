// Test helper: round 7's mutations of the differential harness (./mutations.ts holds the first set).
// Page 1's database size (file format §1.3.7: it counts only when version-valid-for equals the change
// counter, else the size comes from the file or the WAL) set below, at and past the real size, in
// the file's page 1 or in the WAL's committed page-1 image; the WAL's checksum byte order (§4.1: the
// magic's low bit) turned over with every checksum redone; salts that change mid-WAL, as a restart
// leaves them (a new header and new frames over older ones) or at one frame only; and a `-shm` whose
// wal-index header lies about mxFrame and the page count (§4.4: the first connection rebuilds it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { Rng } from '../reliability/chainkit'
import { chainOf, type BasePages, type Mutation } from './mutations'
import { rechecksumWal, walLayout, type WalLayout } from './wal-edit'

function walOf(dir: string): { path: string; wal: Buffer; layout: WalLayout } | null {
  const path = `${chainOf(dir)}-wal`
  if (!existsSync(path)) return null
  const wal = readFileSync(path)
  const layout = walLayout(wal)
  return layout && layout.frames.length > 0 ? { path, wal, layout } : null
}

/** The last commit frame's index (-1 without one). */
function lastCommit(layout: WalLayout): number {
  for (let i = layout.frames.length - 1; i >= 0; i--) if (layout.frames[i]!.commit > 0) return i
  return -1
}

/** Page 1's size field and version-valid-for, at `p` (a whole page 1). */
function setSize(r: Rng, p: Buffer, real: number): string {
  const size = r.pick([0, 1, real - 2, real - 1, real, real + 1, real + 7, Math.floor(real / 2), 0x7fffffff])
  const n = Math.max(0, size) >>> 0
  p.writeUInt32BE(n, 28)
  const counter = p.readUInt32BE(24)
  const how = r.int(0, 2)
  // 0: valid (version-valid-for = change counter); 1: stale; 2: the counter moved instead.
  if (how === 0) p.writeUInt32BE(counter, 92)
  else if (how === 1) p.writeUInt32BE((counter + 1) >>> 0, 92)
  else p.writeUInt32BE((p.readUInt32BE(92) + 3) >>> 0, 24)
  return `size ${n} of ${real} pages, ${['valid', 'stale', 'counter moved'][how]}`
}

export const SEVEN_MUTATIONS: Mutation[] = [
  {
    name: 'header.size',
    apply: (d, r, b: BasePages) => {
      const w = walOf(d)
      const upTo = w ? lastCommit(w.layout) : -1
      const inWal = w && upTo >= 0 ? w.layout.frames.slice(0, upTo + 1).filter((f) => f.page === 1) : []
      if (w && inWal.length > 0 && r.chance(0.7)) {
        const f = inWal[inWal.length - 1]!
        const page = w.wal.subarray(f.at + 24, f.at + 24 + w.layout.pageSize)
        const what = setSize(r, page, w.layout.frames[upTo]!.commit)
        rechecksumWal(w.wal)
        writeFileSync(w.path, w.wal)
        return `WAL page 1: ${what}`
      }
      const file = readFileSync(chainOf(d))
      const what = setSize(r, file.subarray(0, b.pageSize), Math.floor(file.length / b.pageSize))
      writeFileSync(chainOf(d), file)
      return `file page 1: ${what}`
    },
  },
  {
    name: 'wal.endian',
    apply: (d) => {
      const w = walOf(d)
      if (!w) return null
      w.wal.writeUInt32BE((w.wal.readUInt32BE(0) ^ 1) >>> 0, 0)
      rechecksumWal(w.wal)
      writeFileSync(w.path, w.wal)
      return `checksums ${w.layout.bigEndian ? 'little' : 'big'}-endian`
    },
  },
  {
    name: 'wal.resalt',
    apply: (d, r) => {
      const w = walOf(d)
      if (!w) return null
      const frames = w.layout.frames
      const k = r.int(0, frames.length - 1)
      const kind = r.int(0, 2)
      const salt = (f: { at: number }, s1: number, s2: number): void => {
        w.wal.writeUInt32BE(s1 >>> 0, f.at + 8)
        w.wal.writeUInt32BE(s2 >>> 0, f.at + 12)
      }
      const [s1, s2] = [w.wal.readUInt32BE(16), w.wal.readUInt32BE(20)]
      if (kind === 0) {
        // A restart: a new header (salt-1 + 1, a new salt-2) and frames before k written under it.
        const n1 = s1 + 1
        const n2 = r.int(0, 0x7fffffff)
        w.wal.writeUInt32BE(n1 >>> 0, 16)
        w.wal.writeUInt32BE(n2 >>> 0, 20)
        w.wal.writeUInt32BE((w.wal.readUInt32BE(12) + 1) >>> 0, 12)
        for (const f of frames.slice(0, k)) salt(f, n1, n2)
      } else if (kind === 1) {
        for (const f of frames.slice(k)) salt(f, s1 + 1, s2)
      } else salt(frames[k]!, s1, s2 ^ 1)
      rechecksumWal(w.wal)
      writeFileSync(w.path, w.wal)
      return `salts ${['restarted', 'changed from', 'changed at'][kind]} frame ${k} of ${frames.length}`
    },
  },
  {
    name: 'side.shm',
    apply: (d, r) => {
      const w = walOf(d)
      if (!w) return null
      const frames = w.layout.frames.length
      const mx = r.pick([0, 1, Math.floor(frames / 2), frames - 1, frames + 5])
      // WalIndexHdr (wal.c), twice, in the host's (little-endian) order, then WalCkptInfo.
      const h = Buffer.alloc(48)
      h.writeUInt32LE(3007000, 0)
      h.writeUInt32LE(r.int(1, 1000), 8)
      h[12] = 1
      h[13] = w.layout.bigEndian ? 1 : 0
      h.writeUInt16LE(w.layout.pageSize === 65536 ? 1 : w.layout.pageSize, 14)
      h.writeUInt32LE(mx, 16)
      h.writeUInt32LE(r.int(1, 400), 20)
      w.wal.copy(h, 32, 16, 24)
      let s0 = 0
      let s1 = 0
      for (let i = 0; i < 40; i += 8) {
        s0 = (s0 + h.readUInt32LE(i) + s1) >>> 0
        s1 = (s1 + h.readUInt32LE(i + 4) + s0) >>> 0
      }
      h.writeUInt32LE(s0, 40)
      h.writeUInt32LE(s1, 44)
      const shm = Buffer.alloc(32768)
      h.copy(shm, 0)
      h.copy(shm, 48)
      shm.writeUInt32LE(mx, 96)
      writeFileSync(`${chainOf(d)}-shm`, shm)
      return `-shm claiming mxFrame ${mx} of ${frames}`
    },
  },
]

/**
 * Page `n` as SQLite reads it (its last frame up to the last commit, else the file's), edited in
 * place; the WAL's checksums redone. Null when the page is in neither.
 */
function editCurrentPage(
  d: string,
  b: BasePages,
  n: number,
  edit: (page: Buffer) => string | null,
): string | null {
  const w = walOf(d)
  if (w) {
    const upTo = lastCommit(w.layout)
    const frames = w.layout.frames.slice(0, upTo + 1).filter((f) => f.page === n)
    const f = frames[frames.length - 1]
    if (f) {
      const what = edit(w.wal.subarray(f.at + 24, f.at + 24 + w.layout.pageSize))
      if (what === null) return null
      rechecksumWal(w.wal)
      writeFileSync(w.path, w.wal)
      return what
    }
  }
  const file = readFileSync(chainOf(d))
  if (n * b.pageSize > file.length) return null
  const what = edit(file.subarray((n - 1) * b.pageSize, n * b.pageSize))
  if (what !== null) writeFileSync(chainOf(d), file)
  return what
}

/**
 * Pages past the file's end: the WAL's last commit says the database is larger than the file and
 * its frames (§4.1: the commit frame's database size), so pages between hold no bytes anywhere —
 * SQLite's pager reads them as zeros. An overflow chain's next pointer (§1.7) or a child pointer
 * (§1.6) is sent there; page 1's own size field is left, made the new size, or made stale.
 */
SEVEN_MUTATIONS.push({
  name: 'wal.beyond',
  apply: (d, r, b) => {
    const w = walOf(d)
    if (!w) return null
    const upTo = lastCommit(w.layout)
    if (upTo < 0) return null
    const commit = w.layout.frames[upTo]!
    const size = commit.commit
    const grown = size + r.int(1, 4)
    const target = r.int(size + 1, grown)
    w.wal.writeUInt32BE(grown, commit.at + 4)
    rechecksumWal(w.wal)
    writeFileSync(w.path, w.wal)
    const pointers = [...b.overflow, ...b.internal]
    if (pointers.length === 0) return null
    const n = r.pick(pointers)
    const what = editCurrentPage(d, b, n, (p) => {
      if (b.overflow.includes(n)) {
        if (p.readUInt32BE(0) === 0) return null
        p.writeUInt32BE(target, 0)
        return `overflow page ${n}'s next`
      }
      if (p[0] !== 0x05) return null
      p.writeUInt32BE(target, 8)
      return `interior page ${n}'s right child`
    })
    if (what === null) return `database size ${grown} (file and WAL: ${size}), no pointer moved`
    const how = r.int(0, 2)
    if (how > 0)
      editCurrentPage(d, b, 1, (p) => {
        p.writeUInt32BE(grown, 28)
        if (how === 2) p.writeUInt32BE((p.readUInt32BE(24) + 1) >>> 0, 92)
        return 'page 1'
      })
    return `database size ${grown} (file and WAL: ${size}), ${what} to ${target}, page 1 size ${['left', 'grown', 'grown and stale'][how]}`
  },
})
