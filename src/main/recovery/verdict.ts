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
import { notSearched, recoverWith, type RecoverOptions } from './recover'

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
