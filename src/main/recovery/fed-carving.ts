// Carving from the evidence hash's reads (issue 36): verify with its `Evidence:` line reads the
// database file once in file order for the SHA-256 (chain/addon/file-hash.ts) and once more for the
// carver; fed through a `FileTap`, the carver scans the very bytes the hash just read (the same
// descriptor, in order, whole pages), and reads by itself only what the tap did not hand over — all
// of it where the addon does not hash, the rest after a read error or a cancel of the hash.
import type { FileTap } from '../chain/addon/file-hash'
import type { Search } from './recover'

export interface FedCarving {
  /** Given to the evidence hash (chain/statement.ts `startStating`). */
  tap: FileTap
  /** The carving: the tap's pieces, then the pages it did not get, read here. */
  carving: Promise<void>
  /** Stop taking pieces (the search was aborted): the carving goes on from where they stopped. */
  stop(): void
}

export function carveFed(search: Search): FedCarving {
  let next = 1 // the next page the carver expects
  let failure: { e: unknown } | null = null
  let open = true
  let release!: () => void
  const ended = new Promise<void>((resolve) => (release = resolve))
  const close = (): void => {
    open = false
    release()
  }
  const tap: FileTap = {
    fd: search.dbFd,
    bytes(pos, bytes) {
      // Out of order (never, with whole pages from 0): the carver reads from its next page itself.
      if (!open || pos !== (next - 1) * search.pageSize) return close()
      try {
        next = search.feed(pos, bytes)
      } catch (e) {
        failure = { e } // the carver's own error (a cancel, a page it could not carve): the search's
        close()
      }
    },
    end: close,
  }
  const carving = ended.then(() => {
    if (failure !== null) throw failure.e
    return search.carveInSlices(next)
  })
  return { tap, carving, stop: close }
}
