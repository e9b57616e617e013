// The private copy made in one read of the evidence (./snapshot.ts): the evidence hash
// (./addon/file-hash.ts) reads the file in file order into two buffers in turn and hands each piece
// to a tap before that buffer is read into again; the tap writes the piece to the copy. So every
// byte is read once, the SHA-256 is of exactly the bytes read, and the copy is exactly those bytes:
// the digest and the copy are made from the same memory, with nothing between them that could
// change it (a piece is hashed by the thread pool into the buffer it was read into, then written
// from that buffer; job k + 2 reads into it only after the tap returned).
//
// Why that proves the copy equal without reading it back: the copy is a new file of ours (created
// here with O_EXCL, mode 0600, in a folder mkdtemp made 0700), written only by this loop, at the
// positions the pieces came from, each write checked to have written every byte; its size is then
// checked to be the evidence's. A hash of the copy read back would read the same page cache these
// writes filled, so it could only catch a bug of this loop — which the tests catch (every byte of
// the copy compared with the evidence, at sizes around every buffer boundary) — and it cost a whole
// second SHA-256 pass. What the earlier two-read scheme also caught, a writer changing the
// evidence between two reads, is caught here by the change check after the read (size, mtime and
// ctime, ./evidence-files.ts `unchangedFiles`): the statement and the verdict are about the one set
// of bytes read, and a file written meanwhile is refused.
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs'
import { AuditError, oneLine } from '../base/errors'
import { nativeFileHash, nativeFileHashActive, type FileTap } from './addon/file-hash'

export interface CopyHashed {
  sha256: string
  /** Bytes read, hashed and written. */
  bytes: number
}

/**
 * Copy what descriptor `fd` reads into the new private file `dst`, hashing the same bytes, in one
 * read. Null where the addon cannot hash (nothing is created then: the caller copies, then hashes
 * the original and the copy). Throws on a write that fails or falls short.
 */
export function copyHashed(
  fd: number,
  dst: string,
  progress: (n: number) => void,
  signal?: AbortSignal,
): Promise<CopyHashed> | null {
  let out = -1
  let written = 0
  let endedAt = -1
  let failure: unknown = null
  const tap: FileTap = {
    fd,
    bytes(pos: number, bytes: Buffer): void {
      try {
        // The pieces follow on from 0 (the tap's contract); anything else is not this copy.
        if (failure !== null || pos !== written)
          throw new Error(`a piece at ${pos} where ${written} was next`)
        let off = 0
        while (off < bytes.length) {
          const n = writeSync(out, bytes, off, bytes.length - off, pos + off)
          if (n <= 0) throw new Error(`no byte written at ${pos + off}`)
          off += n
        }
        written = pos + bytes.length
      } catch (e) {
        failure ??= e
        throw e // the hash goes on without the tap; the copy is refused below
      }
    },
    end(pos: number): void {
      endedAt = pos
    },
  }
  // The copy is created only where the addon hashes; the caller makes it otherwise.
  if (!nativeFileHashActive()) return null
  out = openSync(dst, 'wx', 0o600)
  const hashing = nativeFileHash(fd, 'the evidence', progress, signal, tap)
  if (hashing === null) {
    closeSync(out)
    throw new AuditError('io', `cannot hash the evidence into ${dst}`)
  }
  return (async () => {
    try {
      const h = await hashing
      if (failure !== null)
        throw new AuditError('io', `cannot write the private copy ${dst}: ${oneLine(failure)}`)
      // Every byte hashed was handed over and written, and the copy holds nothing else.
      const size = fstatSync(out).size
      if (endedAt !== h.bytes || written !== h.bytes || size !== h.bytes)
        throw new AuditError(
          'io',
          `the private copy ${dst} holds ${size} bytes where ${h.bytes} were read (${written} written)`,
        )
      return h
    } finally {
      closeSync(out)
    }
  })()
}
