// The committed frames of a `-wal` file, found exactly as SQLite's WAL recovery finds them (wal.c
// `walIndexRecover`, file format §4 "The Write-Ahead Log"): frames whose salts match the header and
// whose cumulative checksum holds, up to the last commit frame. The newest committed copy of a page
// wins (`sqlite3WalFindFrame`). The header, checksum and frame rules are ../sqlite/wal.ts's, read
// strictly.
import { readSync } from 'node:fs'
import { Unsupported } from '../sqlite/decline'
import { frameChains, walHeader, WAL_FRAME_HEADER_BYTES, WAL_HEADER_BYTES } from '../sqlite/wal'

export interface WalIndex {
  /** Page number → byte offset of that page's newest committed image in the WAL. */
  pages: Map<number, number>
  /** Database size in pages after the last commit, or 0 when the WAL holds no commit. */
  dbPages: number
  /** Committed frames (for the evidence note). */
  frames: number
}

export const NO_WAL: WalIndex = { pages: new Map(), dbPages: 0, frames: 0 }

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
  if (size <= WAL_HEADER_BYTES) return NO_WAL
  const header = Buffer.alloc(WAL_HEADER_BYTES)
  if (readSync(fd, header, 0, WAL_HEADER_BYTES, 0) < WAL_HEADER_BYTES) return NO_WAL
  const hdr = walHeader(header, 'strict')
  if (!hdr.valid) return NO_WAL
  const walPageSize = hdr.pageSize
  const s = hdr.sum
  const frameSize = WAL_FRAME_HEADER_BYTES + walPageSize
  const pending = new Map<number, number>()
  const committed = new Map<number, number>()
  let dbPages = 0
  let frames = 0
  const frame = Buffer.alloc(frameSize)
  for (let off = WAL_HEADER_BYTES; off + frameSize <= size; off += frameSize) {
    if (readSync(fd, frame, 0, frameSize, off) < frameSize) break
    if (!frameChains(frame, walPageSize, hdr, s)) break
    pending.set(frame.readUInt32BE(0), off + WAL_FRAME_HEADER_BYTES)
    const commitSize = frame.readUInt32BE(4)
    if (commitSize !== 0) {
      for (const [p, o] of pending) committed.set(p, o)
      pending.clear()
      dbPages = commitSize
      frames = (off + frameSize - WAL_HEADER_BYTES) / frameSize
    }
  }
  if (frames > 0 && walPageSize !== pageSize) throw new Unsupported('WAL page size differs from the database')
  return { pages: committed, dbPages, frames }
}
