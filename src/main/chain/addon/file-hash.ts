// The evidence hash through the addon (native/src/file_hash.c): SHA-256 of a whole file read in file
// order on libuv's thread pool with the CPU's SHA extensions. It starts as soon as it is asked for
// (a worker thread first spends ≈0.1 s loading its code), and no byte of the file becomes a
// JavaScript value. Without the addon, with BIJOTEL_NATIVE=0, or without SHA extensions (where
// OpenSSL is the faster SHA-256) the caller hashes with node:crypto as before.
import { AuditError, oneLine } from '../../base/errors'
import { nativeAddon } from './row-prover'

interface FileHashAddon {
  accelerated(): boolean
  fileHashStart(): object
  fileHashRead(state: object, fd: number, pos: number, len: number): Promise<number>
  fileHashDigest(state: object): string
}

/** Bytes per thread-pool job: small enough to cancel and report progress often. */
const STEP = 16 * 1024 * 1024

function fileHashAddon(): FileHashAddon | null {
  if (process.env['BIJOTEL_NATIVE'] === '0') return null
  const addon = nativeAddon() as FileHashAddon | null
  return addon !== null && typeof addon.fileHashRead === 'function' && addon.accelerated() ? addon : null
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
): Promise<{ sha256: string; bytes: number }> | null {
  const addon = fileHashAddon()
  if (addon === null) return null
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
