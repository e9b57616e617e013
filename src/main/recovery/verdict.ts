// Recovery as a post-pass on a finished verdict: search the files of the chain the verdict is
// about, and add the recovered rows and the findings they prove (./findings.ts). A file the direct
// reader declines keeps its verdict, with a note that it was not searched.
import type { RecoveryResult } from '../../shared/recovery-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { Unsupported } from '../chain/direct/format'
import { openDirect, type DirectChain } from '../chain/direct/open'
import { AuditError, oneLine } from '../errors'
import type { KeyMaterial } from '../verify/secrets'
import { applyRecovery } from './findings'
import { directLive, type LiveChain } from './live'
import { notSearched, recoverWith, Search, type RecoverOptions } from './recover'

/** The recovery of `path` (or of `chain`, already open on it), with the live chain's extent. */
export function searchFiles(
  path: string,
  keys: KeyMaterial[],
  opts: RecoverOptions & { chain?: DirectChain } = {},
): { result: RecoveryResult; first: bigint | null; last: bigint | null } {
  let chain = opts.chain
  if (!chain) {
    try {
      chain = openDirect(path)
    } catch (e) {
      if (e instanceof AuditError) throw e
      const why =
        e instanceof Unsupported ? `the file reader does not read this file (${e.message})` : oneLine(e)
      return { result: notSearched(why), first: null, last: null }
    }
  }
  let live: LiveChain | null = null
  try {
    live = directLive(chain)
    return { result: recoverWith(chain, live, keys, opts), first: live.first, last: live.last }
  } catch (e) {
    if (e instanceof AuditError) throw e
    return { result: notSearched(`a page could not be read (${oneLine(e)})`), first: null, last: null }
  } finally {
    live?.close()
  }
}

/** `verdict` after searching the files of `path` for deleted and earlier rows. */
export function withRecovery(
  path: string,
  verdict: VerifyVerdict,
  keys: KeyMaterial[],
  opts: RecoverOptions & { chain?: DirectChain } = {},
): VerifyVerdict {
  if (verdict.cancelled) return verdict
  const { result, first, last } = searchFiles(path, keys, opts)
  if (!result.summary.searched) return { ...verdict, recovery: result.summary, recovered: [] }
  return applyRecovery(verdict, result, { first, last })
}

/** Search a chain file given by path; a file the direct reader declines is reported as not searched. */
export function recoverFile(path: string, keys: KeyMaterial[], opts: RecoverOptions = {}): RecoveryResult {
  return searchFiles(path, keys, opts).result
}

export interface RunningSearch {
  /** The verdict with what the search found (waits for the carving to end). */
  finish(verdict: VerifyVerdict): Promise<VerifyVerdict>
  /** Stop the search and release its files (the verdict will not be finished). */
  abort(): void
}

function unsearched(verdict: VerifyVerdict, why: string): VerifyVerdict {
  return { ...verdict, recovery: notSearched(why).summary, recovered: [] }
}

/**
 * Start searching the files of `chain` (open on `path`) while its verdict is being made: the
 * carving runs on this thread in slices, between the moments verify's workers need it.
 */
export function startRecovery(
  chain: DirectChain,
  keys: KeyMaterial[],
  opts: RecoverOptions = {},
): RunningSearch {
  let stopped = false
  const signal = {
    get aborted(): boolean {
      return stopped || (opts.signal?.aborted ?? false)
    },
  }
  let search: Search
  try {
    search = new Search(chain, { signal })
  } catch (e) {
    if (e instanceof AuditError) throw e
    return { finish: async (v) => unsearched(v, oneLine(e)), abort: () => undefined }
  }
  const carving = search.carveInSlices().then(
    () => null,
    (e: unknown) => e,
  )
  return {
    async finish(verdict) {
      const failed = await carving
      let live: LiveChain | null = null
      try {
        if (verdict.cancelled) return verdict
        if (failed) {
          if (failed instanceof AuditError) throw failed
          return unsearched(verdict, `a page could not be read (${oneLine(failed)})`)
        }
        live = directLive(chain)
        const result = search.prove(live, keys)
        return applyRecovery(verdict, result, { first: live.first, last: live.last })
      } catch (e) {
        if (e instanceof AuditError) throw e
        return unsearched(verdict, `a page could not be read (${oneLine(e)})`)
      } finally {
        live?.close()
        search.close()
      }
    },
    abort() {
      stopped = true
      void carving.then(() => search.close())
    },
  }
}
