// The committed frames of a `-wal` file, found exactly as SQLite's WAL recovery finds them when no
// `-shm` index is trusted: frames whose salts match the header and whose cumulative checksum holds,
// up to the last commit frame. The newest committed copy of a page wins.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { Unsupported } from './format'

export interface WalIndex {
  /** Page number → byte offset of that page's newest committed image in the WAL. */
  pages: Map<number, number>
  /** Database size in pages after the last commit, or 0 when the WAL holds no commit. */
  dbPages: number
  /** Committed frames (for the evidence note). */
  frames: number
}

export const NO_WAL: WalIndex = { pages: new Map(), dbPages: 0, frames: 0 }

function checksum(buf: Uint8Array, off: number, len: number, bigEndian: boolean, s: [number, number]): void {
  const view = new DataView(buf.buffer, buf.byteOffset + off, len)
  let s0 = s[0]
  let s1 = s[1]
  for (let i = 0; i < len; i += 8) {
    const x0 = view.getUint32(i, !bigEndian)
    const x1 = view.getUint32(i + 4, !bigEndian)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  s[0] = s0
  s[1] = s1
}

/** Index a WAL file; an empty or absent WAL gives NO_WAL. Anything unusual is left to SQLite. */
export function indexWal(walPath: string, pageSize: number): WalIndex {
  let fd: number
  try {
    fd = openSync(walPath, 'r')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return NO_WAL
    throw new Unsupported(`cannot open the WAL: ${(e as Error).message}`)
  }
  try {
    const size = fstatSync(fd).size
    if (size === 0) return NO_WAL
    const header = Buffer.alloc(32)
    if (readSync(fd, header, 0, 32, 0) < 32) throw new Unsupported('WAL shorter than its header')
    const magic = header.readUInt32BE(0)
    if (magic !== 0x377f0682 && magic !== 0x377f0683) throw new Unsupported('WAL with a bad magic number')
    const bigEndian = magic === 0x377f0683
    if (header.readUInt32BE(4) !== 3007000) throw new Unsupported('WAL of an unknown version')
    if (header.readUInt32BE(8) !== pageSize) throw new Unsupported('WAL page size differs from the database')
    const s: [number, number] = [0, 0]
    checksum(header, 0, 24, bigEndian, s)
    if (s[0] !== header.readUInt32BE(24) || s[1] !== header.readUInt32BE(28))
      throw new Unsupported('WAL header checksum mismatch')
    const salt1 = header.readUInt32BE(16)
    const salt2 = header.readUInt32BE(20)

    const frameSize = 24 + pageSize
    const pending = new Map<number, number>()
    const committed = new Map<number, number>()
    let dbPages = 0
    let frames = 0
    const frame = Buffer.alloc(frameSize)
    for (let off = 32; off + frameSize <= size; off += frameSize) {
      if (readSync(fd, frame, 0, frameSize, off) < frameSize) break
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break
      checksum(frame, 0, 8, bigEndian, s)
      checksum(frame, 24, pageSize, bigEndian, s)
      if (s[0] !== frame.readUInt32BE(16) || s[1] !== frame.readUInt32BE(20)) break
      const page = frame.readUInt32BE(0)
      if (page === 0) break
      pending.set(page, off + 24)
      const commitSize = frame.readUInt32BE(4)
      if (commitSize !== 0) {
        for (const [p, o] of pending) committed.set(p, o)
        pending.clear()
        dbPages = commitSize
        frames = (off + frameSize - 32) / frameSize
      }
    }
    return { pages: committed, dbPages, frames }
  } finally {
    closeSync(fd)
  }
}
