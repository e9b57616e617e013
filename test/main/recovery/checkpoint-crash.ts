// Test kit (issue 39, round 8): a crash in the middle of a checkpoint. A checkpoint copies, for every
// page the WAL holds up to its last commit, the newest frame's image into the database file, in page
// order (wal.c walCheckpoint: walIteratorInit sorts by page number), and only once every page is
// copied truncates the file to the commit's size; a crash part-way leaves the WAL whole and the file
// holding the first k pages' new images beside the others' old ones. SQLite reads such files as if no
// page had been copied (the WAL's frames override the file). The copy is done here byte for byte on the
// evidence's copy, as wal.c writes it.
import { closeSync, openSync, readFileSync, ftruncateSync, writeSync } from 'node:fs'
import type { Rng } from '../reliability/chainkit'

/** WAL checksum (file-format §4.3): pairs of 32-bit words, big-endian when the magic's low bit is 1. */
function checksum(buf: Buffer, from: number, to: number, be: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s
  for (let i = from; i < to; i += 8) {
    const x0 = be ? buf.readUInt32BE(i) : buf.readUInt32LE(i)
    const x1 = be ? buf.readUInt32BE(i + 4) : buf.readUInt32LE(i + 4)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  return [s0, s1]
}

/** The committed frames of `wal` (file-format §4.1-4.3): each page's newest image and the last commit's size. */
export function committedPages(
  wal: Buffer,
): { pageSize: number; pages: Map<number, Buffer>; size: number } | null {
  if (wal.length < 32) return null
  const magic = wal.readUInt32BE(0)
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null
  const be = (magic & 1) === 1
  const pageSize = wal.readUInt32BE(8)
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)]
  let sum = checksum(wal, 0, 24, be, [0, 0])
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return null
  const pages = new Map<number, Buffer>()
  let pending = new Map<number, Buffer>()
  let size = 0
  for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
    if (wal.readUInt32BE(off + 8) !== salt[0] || wal.readUInt32BE(off + 12) !== salt[1]) break
    sum = checksum(wal, off, off + 8, be, sum)
    sum = checksum(wal, off + 24, off + 24 + pageSize, be, sum)
    if (sum[0] !== wal.readUInt32BE(off + 16) || sum[1] !== wal.readUInt32BE(off + 20)) break
    pending.set(wal.readUInt32BE(off), wal.subarray(off + 24, off + 24 + pageSize))
    const commit = wal.readUInt32BE(off + 4)
    if (commit !== 0) {
      for (const [p, img] of pending) pages.set(p, img)
      pending = new Map()
      size = commit
    }
  }
  return pages.size === 0 ? null : { pageSize, pages, size }
}

/**
 * `db` (with its `-wal` beside it) as a crash part-way through a checkpoint leaves it: the first k of
 * the WAL's committed pages, in page order, copied into the file; with every page copied, the file
 * sometimes cut to the commit's size too (the crash came after the truncation, before the WAL's
 * reset). Returns what was done, or null when the WAL holds no committed page.
 */
export function crashMidCheckpoint(db: string, rng: Rng): string | null {
  let wal: Buffer
  try {
    wal = readFileSync(`${db}-wal`)
  } catch {
    return null
  }
  const c = committedPages(wal)
  if (!c) return null
  const order = [...c.pages.keys()].sort((a, b) => a - b)
  const k = rng.next() < 0.2 ? order.length : Math.floor(rng.next() * (order.length + 1))
  const fd = openSync(db, 'r+')
  try {
    for (const p of order.slice(0, k)) writeSync(fd, c.pages.get(p)!, 0, c.pageSize, (p - 1) * c.pageSize)
    const cut = k === order.length && rng.next() < 0.5
    if (cut) ftruncateSync(fd, c.size * c.pageSize)
    return `checkpoint crash: ${k} of ${order.length} pages copied${cut ? ', file cut' : ''}`
  } finally {
    closeSync(fd)
  }
}
