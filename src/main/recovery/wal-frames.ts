// Every frame a `-wal` file holds, placed in its history (file-format §4, SQLite's wal.c):
// - the current generation: frames whose salts equal the header's and whose cumulative checksum holds
//   (what SQLite's WAL recovery accepts); those up to the last commit frame are committed, those
//   after it belong to a transaction in flight or rolled back;
// - frames after the first that fails (salt or checksum) are left over from before: a frame with the
//   header's salts is from a rolled-back or torn write of this generation, a frame whose salt-1 is
//   smaller by k is from k checkpoints ago (each restart of the WAL adds one to salt-1 and draws a
//   new salt-2: wal.c walRestartHdr). Their checksums chain from a header that is gone: they are
//   carved, never trusted; one that chains frame to frame to a commit frame was committed, any
//   other's commit state is unknowable.
// The header, checksum and frame rules are the format module's (../chain/sqlite/wal.ts), read
// tolerantly: a header of another version is still read. The bytes are read through the reader's
// pager (../chain/direct/pager.ts), the one page access.
import {
  frameChains,
  frameHeader,
  walHeader,
  WAL_FRAME_HEADER_BYTES,
  WAL_HEADER_BYTES,
} from '../chain/sqlite/wal'
import type { Pager } from '../chain/direct/pager'
import type { WalIndex } from '../chain/direct/wal'

export interface WalFrame {
  /** 1-based frame number in file order. */
  frame: number
  /** Byte offset of the frame header in the WAL; the page image follows 24 bytes later. */
  offset: number
  page: number
  salt1: number
  salt2: number
  /** 0 for the header's generation, -k for k checkpoints before; null when the header is unreadable. */
  generation: number | null
  /** true / false for the current generation; null for earlier ones. */
  committed: boolean | null
  /** The newest committed image of its page: what SQLite reads for that page now. */
  current: boolean
  /** A commit frame: its header holds the database size (§4.3), the last frame of its transaction. */
  commit?: true
}

export interface WalFrames {
  frames: WalFrame[]
  /** Database size in pages after the last commit (0: no commit in the WAL). */
  dbPages: number
  /** Page number → frame (index into `frames`) of its current image. */
  currentByPage: Map<number, number>
  headerValid: boolean
}

export const NO_FRAMES: WalFrames = { frames: [], dbPages: 0, currentByPage: new Map(), headerValid: false }

/** Largest page number a frame may name before it is taken for garbage (SQLite's own limit). */
const MAX_PAGE = 0xfffffffe

/**
 * All frames of the WAL of `walSize` bytes, with their place in its history, read through `pager`
 * (its WAL descriptor; the database's page size).
 */
export function listWalFrames(pager: Pager, walSize: number): WalFrames {
  const pageSize = pager.pageSize
  if (walSize < WAL_HEADER_BYTES) return NO_FRAMES
  const header = Buffer.alloc(WAL_HEADER_BYTES)
  if (pager.walBytes(0, header) < WAL_HEADER_BYTES) return NO_FRAMES
  const hdr = walHeader(header, 'tolerant')
  // Frames are read at the database's page size: a header of another one is not this WAL's.
  const headerValid = hdr.valid && hdr.pageSize === pageSize
  const s = hdr.sum
  const hSalt1 = hdr.salt1
  const hSalt2 = hdr.salt2

  const frameSize = WAL_FRAME_HEADER_BYTES + pageSize
  const frames: WalFrame[] = []
  const pending = new Map<number, number>()
  const currentByPage = new Map<number, number>()
  let dbPages = 0
  let chained = headerValid
  let lastCommit = -1
  const buf = Buffer.allocUnsafe(frameSize)
  // Frames left from before: whether each chains from the frame before it in the file (same salts,
  // its checksum computed on from that frame's), and whether it is a commit frame.
  const left: { links: boolean; commit: boolean }[] = []
  let before: { salt1: number; salt2: number; sum: [number, number] } | null = null
  for (let off = WAL_HEADER_BYTES, i = 0; off + frameSize <= walSize; off += frameSize, i++) {
    if (pager.walBytes(off, buf) < frameSize) break
    const { page, salt1, salt2, commitSize } = frameHeader(buf)
    if (chained) chained = frameChains(buf, pageSize, hdr, s)
    const links =
      !chained &&
      before !== null &&
      before.salt1 === salt1 &&
      before.salt2 === salt2 &&
      frameChains(buf, pageSize, { ...hdr, salt1, salt2 }, before.sum)
    before = { salt1, salt2, sum: [buf.readUInt32BE(16), buf.readUInt32BE(20)] }
    if (page === 0 || page > MAX_PAGE) {
      before = null
      continue
    }
    let generation: number | null = null
    if (headerValid) {
      const back = (hSalt1 - salt1) >>> 0
      // A salt-1 larger than the header's, or absurdly far behind, is not a generation of this WAL.
      generation = back === 0 ? (salt2 === hSalt2 ? 0 : null) : back < 1 << 20 ? -back : null
    }
    // wal.c walEncodeFrame: while a transaction must rewrite its frames' checksums at commit
    // (iReCksum: a page written twice), frames go out with zero salts and checksums, filled in by
    // walRewriteChecksums when it commits. One still zero was never part of a commit: a transaction
    // rolled back or cut off after spilling its pages (an honest writer's failed batch).
    const neverCommitted =
      salt1 === 0 &&
      salt2 === 0 &&
      commitSize === 0 &&
      buf.readUInt32BE(16) === 0 &&
      buf.readUInt32BE(20) === 0
    const f: WalFrame = {
      frame: i + 1,
      offset: off,
      page,
      salt1,
      salt2,
      generation,
      committed: chained || generation === 0 || neverCommitted ? false : null,
      current: false,
    }
    if (commitSize !== 0) f.commit = true
    frames.push(f)
    left.push({ links, commit: commitSize !== 0 })
    if (chained) {
      pending.set(page, frames.length - 1)
      if (commitSize !== 0) {
        for (const [p, idx] of pending) currentByPage.set(p, idx)
        pending.clear()
        dbPages = commitSize
        lastCommit = frames.length - 1
      }
    }
  }
  for (let k = 0; k <= lastCommit; k++) frames[k]!.committed = true
  // A frame of an earlier generation was committed when the frames after it chain, one to the next,
  // to a commit frame of its transaction (§4.4: a transaction's frames are written in order, the
  // last one marked by its database size). Where no such chain survives, its commit state stays
  // unknowable (a later write or a truncated WAL may have taken the commit frame).
  let toCommit = false
  for (let k = frames.length - 1; k >= 0; k--) {
    const f = frames[k]!
    const next = left[k + 1]
    toCommit = left[k]!.commit || (toCommit && next !== undefined && next.links)
    if (f.committed === null && toCommit) f.committed = true
  }
  for (const idx of currentByPage.values()) frames[idx]!.current = true
  // A page past the end of the committed database is free space now, whatever frame holds it.
  for (const [p, idx] of currentByPage) {
    if (p > dbPages) {
      frames[idx]!.current = false
      currentByPage.delete(p)
    }
  }
  return { frames, dbPages, currentByPage, headerValid }
}

/**
 * The pager's WAL index (../chain/direct/wal.ts) of these frames: each page's current image, where
 * the pager reads "the live page n" from, and the database's size after the last commit.
 */
export function walIndexOf(wal: WalFrames): WalIndex {
  const pages = new Map<number, number>()
  for (const [p, idx] of wal.currentByPage) pages.set(p, wal.frames[idx]!.offset + WAL_FRAME_HEADER_BYTES)
  const frames = wal.frames.filter((f) => f.committed === true).length
  return { pages, dbPages: wal.dbPages, frames }
}
