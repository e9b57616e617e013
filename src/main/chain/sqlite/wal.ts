// The write-ahead log (https://www.sqlite.org/fileformat2.html §4.1 "WAL File Format", §4.2
// "Checksum Algorithm", §4.3 "Checkpoint Algorithm"; wal.c walIndexRecover, walDecodeFrame): a
// 32-byte header, then frames of a 24-byte header and one page image. Strict reading (the direct
// reader's indexWal) declines a WAL of an unknown version; tolerant reading (recovery's frame list)
// takes the header as it is. Both use the one header parser, checksum and frame check below.
import { Unsupported, type Decoding } from './decline'

export const WAL_HEADER_BYTES = 32
export const WAL_FRAME_HEADER_BYTES = 24
/** Magic number of a WAL whose checksums are computed little-endian; +1 for big-endian. */
export const WAL_MAGIC = 0x377f0682
/** The only WAL format version (§4.1, offset 4). */
export const WAL_VERSION = 3007000

/** The running checksum (s0, s1) of §4.2, updated in place. */
export type WalSum = [number, number]

/**
 * §4.2: over 8-byte steps of `len` bytes at `off` (len a multiple of 8), x0 and x1 the two 32-bit
 * words in the byte order the magic number says, s0 += x0 + s1; s1 += x1 + s0 (mod 2^32).
 */
export function walChecksum(buf: Uint8Array, off: number, len: number, bigEndian: boolean, s: WalSum): void {
  const view = new DataView(buf.buffer, buf.byteOffset + off, len)
  let s0 = s[0]
  let s1 = s[1]
  for (let i = 0; i < len; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0
  }
  s[0] = s0
  s[1] = s1
}

export interface WalHeader {
  bigEndian: boolean
  version: number
  pageSize: number
  salt1: number
  salt2: number
  /**
   * What walIndexRecover accepts: the magic number, a page size that is a power of two from 512 to
   * 65536, and a header checksum that holds. A WAL whose header fails holds no frames to SQLite.
   */
  valid: boolean
  /** The checksum after the header: the first frame's checksum chains from it. */
  sum: WalSum
}

/**
 * The WAL header in the first 32 bytes of `buf`. `strict`: a valid header of another version is
 * declined (SQLite answers SQLITE_CANTOPEN). `tolerant`: the version is not looked at.
 */
export function walHeader(buf: Uint8Array, mode: Decoding = 'strict'): WalHeader {
  const b = Buffer.from(buf.buffer, buf.byteOffset, WAL_HEADER_BYTES)
  const magic = b.readUInt32BE(0)
  const pageSize = b.readUInt32BE(8)
  const bigEndian = (magic & 1) === 1
  const sum: WalSum = [0, 0]
  walChecksum(b, 0, 24, bigEndian, sum)
  const valid =
    (magic & 0xfffffffe) === WAL_MAGIC &&
    (pageSize & (pageSize - 1)) === 0 &&
    pageSize <= 65536 &&
    pageSize >= 512 &&
    sum[0] === b.readUInt32BE(24) &&
    sum[1] === b.readUInt32BE(28)
  const version = b.readUInt32BE(4)
  if (mode === 'strict' && valid && version !== WAL_VERSION)
    throw new Unsupported('WAL of an unknown version')
  return { bigEndian, version, pageSize, salt1: b.readUInt32BE(16), salt2: b.readUInt32BE(20), valid, sum }
}

export interface FrameHeader {
  page: number
  /** The database size in pages after this commit frame; 0 for a frame that is not a commit. */
  commitSize: number
  salt1: number
  salt2: number
}

/** The 24-byte frame header at the start of `frame` (§4.1). */
export function frameHeader(frame: Buffer): FrameHeader {
  return {
    page: frame.readUInt32BE(0),
    commitSize: frame.readUInt32BE(4),
    salt1: frame.readUInt32BE(8),
    salt2: frame.readUInt32BE(12),
  }
}

/**
 * Whether `frame` (header and `pageSize` bytes of page image) continues the log as walDecodeFrame
 * accepts it: its salts equal the header's, its page number is not 0, and the cumulative checksum
 * over its first 8 header bytes and its page image, carried in `sum` (updated), equals the frame's.
 */
export function frameChains(frame: Buffer, pageSize: number, hdr: WalHeader, sum: WalSum): boolean {
  if (frame.readUInt32BE(8) !== hdr.salt1 || frame.readUInt32BE(12) !== hdr.salt2) return false
  if (frame.readUInt32BE(0) === 0) return false
  walChecksum(frame, 0, 8, hdr.bigEndian, sum)
  walChecksum(frame, WAL_FRAME_HEADER_BYTES, pageSize, hdr.bigEndian, sum)
  return sum[0] === frame.readUInt32BE(16) && sum[1] === frame.readUInt32BE(20)
}
