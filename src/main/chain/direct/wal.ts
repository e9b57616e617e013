// The committed frames of a `-wal` file, found exactly as SQLite's WAL recovery finds them (wal.c
// `walIndexRecover`, file format §4 "The Write-Ahead Log"): frames whose salts match the header and
// whose cumulative checksum holds, up to the last commit frame. The newest committed copy of a page
// wins (`sqlite3WalFindFrame`).
import { readSync } from 'node:fs'
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

/**
 * Index a WAL through its descriptor exactly as `walIndexRecover` (wal.c) rebuilds the wal-index
 * when no connection holds the file (the first connection truncates any `-shm` and recovers: see
 * os_unix.c `unixLockSharedMemory`): a WAL of 32 bytes or less, a bad magic number, an invalid page
 * size or a header checksum that fails holds no frames and is read as empty; another version is an
 * error to SQLite (SQLITE_CANTOPEN), declined here. Frames are read from the first on while their
 * salts equal the header's, their page number is not 0 and their cumulative checksum holds
 * (`walDecodeFrame`); the last commit frame among them ends the log, and its database size is the
 * pager's page count (`hdr.nPage`). A WAL whose committed frames are of another page size than the
 * database is declined.
 */
export function indexWal(fd: number, size: number, pageSize: number): WalIndex {
  if (size <= 32) return NO_WAL
  const header = Buffer.alloc(32)
  if (readSync(fd, header, 0, 32, 0) < 32) return NO_WAL
  const magic = header.readUInt32BE(0)
  const walPageSize = header.readUInt32BE(8)
  if (
    (magic & 0xfffffffe) !== 0x377f0682 ||
    (walPageSize & (walPageSize - 1)) !== 0 ||
    walPageSize > 65536 ||
    walPageSize < 512
  )
    return NO_WAL
  const bigEndian = (magic & 1) === 1
  const s: [number, number] = [0, 0]
  checksum(header, 0, 24, bigEndian, s)
  if (s[0] !== header.readUInt32BE(24) || s[1] !== header.readUInt32BE(28)) return NO_WAL
  if (header.readUInt32BE(4) !== 3007000) throw new Unsupported('WAL of an unknown version')
  const salt1 = header.readUInt32BE(16)
  const salt2 = header.readUInt32BE(20)

  const frameSize = 24 + walPageSize
  const pending = new Map<number, number>()
  const committed = new Map<number, number>()
  let dbPages = 0
  let frames = 0
  const frame = Buffer.alloc(frameSize)
  for (let off = 32; off + frameSize <= size; off += frameSize) {
    if (readSync(fd, frame, 0, frameSize, off) < frameSize) break
    if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break
    const page = frame.readUInt32BE(0)
    if (page === 0) break
    checksum(frame, 0, 8, bigEndian, s)
    checksum(frame, 24, walPageSize, bigEndian, s)
    if (s[0] !== frame.readUInt32BE(16) || s[1] !== frame.readUInt32BE(20)) break
    pending.set(page, off + 24)
    const commitSize = frame.readUInt32BE(4)
    if (commitSize !== 0) {
      for (const [p, o] of pending) committed.set(p, o)
      pending.clear()
      dbPages = commitSize
      frames = (off + frameSize - 32) / frameSize
    }
  }
  if (frames > 0 && walPageSize !== pageSize) throw new Unsupported('WAL page size differs from the database')
  return { pages: committed, dbPages, frames }
}
