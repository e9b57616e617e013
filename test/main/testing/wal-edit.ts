// Test helper: reading and rewriting a `-wal` file's frames (file format §4.1 "WAL File Format"),
// so a test can change a page image, a commit size or a salt and then make every checksum hold
// again — a WAL SQLite accepts, carrying the change.

export interface WalFrame {
  /** Byte offset of the frame header. */
  at: number
  page: number
  commit: number
}

export interface WalLayout {
  pageSize: number
  bigEndian: boolean
  frames: WalFrame[]
}

export function walLayout(wal: Buffer): WalLayout | null {
  if (wal.length < 32) return null
  const magic = wal.readUInt32BE(0)
  if ((magic & 0xfffffffe) !== 0x377f0682) return null
  const pageSize = wal.readUInt32BE(8)
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return null
  const frames: WalFrame[] = []
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize)
    frames.push({ at, page: wal.readUInt32BE(at), commit: wal.readUInt32BE(at + 4) })
  return { pageSize, bigEndian: (magic & 1) === 1, frames }
}

function sum(buf: Buffer, off: number, len: number, bigEndian: boolean, s: [number, number]): void {
  for (let i = 0; i < len; i += 8) {
    const x0 = bigEndian ? buf.readUInt32BE(off + i) : buf.readUInt32LE(off + i)
    const x1 = bigEndian ? buf.readUInt32BE(off + i + 4) : buf.readUInt32LE(off + i + 4)
    s[0] = (s[0] + x0 + s[1]) >>> 0
    s[1] = (s[1] + x1 + s[0]) >>> 0
  }
}

/**
 * Rewrites the header checksum and every frame's cumulative checksum in place, from the start, so
 * that a WAL edited anywhere reads as valid up to its end (frames whose salts differ from the
 * header's stay invalid: their checksum is written, SQLite still stops there).
 */
export function rechecksumWal(wal: Buffer): void {
  const layout = walLayout(wal)
  if (!layout) return
  const s: [number, number] = [0, 0]
  sum(wal, 0, 24, layout.bigEndian, s)
  wal.writeUInt32BE(s[0], 24)
  wal.writeUInt32BE(s[1], 28)
  for (const f of layout.frames) {
    sum(wal, f.at, 8, layout.bigEndian, s)
    sum(wal, f.at + 24, layout.pageSize, layout.bigEndian, s)
    wal.writeUInt32BE(s[0], f.at + 16)
    wal.writeUInt32BE(s[1], f.at + 20)
  }
}

/** The page image of `frame` in `wal` (a view: edits write through). */
export function framePage(wal: Buffer, layout: WalLayout, frame: WalFrame): Buffer {
  return wal.subarray(frame.at + 24, frame.at + 24 + layout.pageSize)
}
