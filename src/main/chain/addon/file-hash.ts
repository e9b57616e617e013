// The evidence hash through the addon (native/src/file_hash.c): SHA-256 of a whole file read in file
// order on libuv's thread pool, hashed by the host's OpenSSL (native/src/crypto.h). It starts as soon
// as it is asked for (a worker thread first spends ≈0.1 s loading its code), and no byte of the file
// becomes a JavaScript value. Without the addon, with BIJOTEL_NATIVE=0, or in a host whose OpenSSL
// the addon cannot reach, the caller hashes with node:crypto as before.
import { AuditError, oneLine } from '../../base/errors'
import { hasCrypto, nativeAddon } from './row-prover'

interface FileHashAddon {
  cryptoSource(): string
  fileHashStart(): object
  fileHashRead(state: object, fd: number, pos: number, len: number, dest?: Uint8Array): Promise<number>
  fileHashDigest(state: object): string
}

/** Bytes per thread-pool job: small enough to cancel and report progress often. */
const STEP = 16 * 1024 * 1024
/**
 * Bytes per job with a tap: two buffers of this size take turns (the thread pool reads and hashes
 * into one while the tap scans or writes the other). Each job ends with a trip through this thread
 * before the next is queued, which the pool waits for: 8 MB rather than 2 MB made verify ≈3 % and
 * the copy path's verify ≈7 % faster at 1M rows (alternating runs, stop 36); the bytes were past the
 * processor's nearest caches at 2 MB already. A power of two, so a multiple of every page size.
 */
export const TAP_STEP = 8 * 1024 * 1024

/**
 * Another reader of the same file in file order — the recovery carver — handed the bytes the hash
 * reads, so the file is read once for both. `bytes` gets [pos, pos + bytes.length) from 0 on, one
 * piece after another, synchronously, and must not keep `bytes` (the buffer is read into again);
 * `end` is called exactly once, with where the pieces stopped: the end of the file, or earlier on an
 * error, a cancel, or where the addon cannot hash (0) — the tap reads the rest itself.
 */
export interface FileTap {
  /** The descriptor it reads: bytes of any other file are never handed to it. */
  readonly fd: number
  bytes(pos: number, bytes: Buffer): void
  end(pos: number): void
}

function fileHashAddon(): FileHashAddon | null {
  if (process.env['BIJOTEL_NATIVE'] === '0') return null
  const addon = nativeAddon() as FileHashAddon | null
  return addon !== null && typeof addon.fileHashRead === 'function' && hasCrypto(addon) ? addon : null
}

/** Whether `nativeFileHash` would hash here (for the bench and the tests). */
export function nativeFileHashActive(): boolean {
  return fileHashAddon() !== null
}

/**
 * SHA-256 of every byte `fd` reads from offset 0 to the end of the file, and how many bytes that
 * was (the caller compares it with the size it opened: a file that grew or shrank meanwhile is
 * refused there). Null where the addon cannot do it. `what` names the file in errors.
 */
export function nativeFileHash(
  fd: number,
  what: string,
  progress: (n: number) => void,
  signal?: AbortSignal,
  tap?: FileTap,
): Promise<{ sha256: string; bytes: number }> | null {
  const addon = fileHashAddon()
  if (addon === null) return null
  if (tap) return tapped(addon, fd, what, progress, tap, signal)
  const state = addon.fileHashStart()
  // The first job is queued now, before the caller goes on to start its readers.
  let pending = addon.fileHashRead(state, fd, 0, STEP)
  return (async () => {
    let pos = 0
    for (;;) {
      let n: number
      try {
        n = await pending
      } catch (e) {
        throw new AuditError('io', `cannot read ${what}: ${oneLine(e)}`)
      }
      pos += n
      if (n > 0) progress(n)
      if (n < STEP) break
      if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while hashing the evidence')
      pending = addon.fileHashRead(state, fd, pos, STEP)
    }
    return { sha256: addon.fileHashDigest(state), bytes: pos }
  })()
}

/**
 * The hash with a tap: the same reads in file order, into two buffers in turn. Job k+1 is queued
 * before the tap scans job k's buffer, and job k+2 (into that buffer again) only after the tap has
 * returned, so the tap never sees a buffer being read into and the thread pool never waits for more
 * than one scan. The digest is of exactly the bytes the tap got.
 */
function tapped(
  addon: FileHashAddon,
  fd: number,
  what: string,
  progress: (n: number) => void,
  tap: FileTap,
  signal?: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
  let pos = 0
  let ended = false
  const end = (): void => {
    if (ended) return
    ended = true
    tap.end(pos)
  }
  // Runs at once up to its first await: the first job is queued before this returns. Whatever
  // fails, even before a byte is read, the tap is ended (finally).
  // The job in flight: a cancel (from the progress callback or the tap) ends the loop while the next
  // job is queued, and the caller may then close the descriptor under it (EBADF) — its end is
  // nobody's to await, so it is caught here and dropped.
  let pending: Promise<number> | null = null
  return (async () => {
    try {
      const state = addon.fileHashStart()
      const bufs = [Buffer.allocUnsafeSlow(TAP_STEP), Buffer.allocUnsafeSlow(TAP_STEP)]
      const buf = (k: number): Buffer => bufs[k % 2]!
      pending = addon.fileHashRead(state, fd, 0, TAP_STEP, buf(0))
      for (let k = 0; ; k++) {
        let n: number
        try {
          n = await pending
        } catch (e) {
          throw new AuditError('io', `cannot read ${what}: ${oneLine(e)}`)
        }
        const full = n === TAP_STEP
        if (full && !signal?.aborted) {
          pending = addon.fileHashRead(state, fd, pos + n, TAP_STEP, buf(k + 1))
        }
        if (n > 0) {
          progress(n)
          try {
            if (!ended) tap.bytes(pos, buf(k).subarray(0, n))
          } catch {
            end() // the tap had what came before `pos`; the hash goes on without it
          }
        }
        pos += n
        if (!full) break
        if (signal?.aborted) throw new AuditError('cancelled', 'cancelled while hashing the evidence')
      }
      end()
      return { sha256: addon.fileHashDigest(state), bytes: pos }
    } catch (e) {
      pending?.catch(() => undefined)
      throw e instanceof AuditError ? e : new AuditError('io', `cannot read ${what}: ${oneLine(e)}`)
    } finally {
      end()
    }
  })()
}
