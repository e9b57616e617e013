// Recovery as a post-pass on a finished verdict: search the files of the chain the verdict is
// about, and add the recovered rows and the findings they prove (./findings.ts). A file the direct
// reader declines keeps its verdict, with a note that it was not searched. The searches that run in
// the app and beside verify carve in slices, so the event loop keeps answering (progress, cancel,
// verify's workers) meanwhile; `bijotel recover` searches in one go.
import type { RecoveryResult } from '../../shared/recovery-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { Unsupported } from '../chain/sqlite/decline'
import { directFrom, openDirect, type DirectChain } from '../chain/direct/open'
import type { Snapshot } from '../chain/snapshot'
import { ChainFile } from '../chain/reader'
import { AuditError, oneLine } from '../base/errors'
import type { KeyMaterial } from '../chain/keys'
import { applyRecovery, type RecoveryContext } from './findings'
import { directLive, type LiveChain } from './live'
import { notSearched, recoverWith, Search, targetOf, type RecoverOptions, type SearchTarget } from './recover'
import { declinedTarget, DEFAULTED, openCopyDirect } from './declined'
import { carveFed } from './fed-carving'
import type { FileTap } from '../chain/addon/file-hash'

export interface Searched {
  result: RecoveryResult
  /** The live chain's first and last seq (null when empty or not searched). */
  first: bigint | null
  last: bigint | null
}

const unread = (why: string): Searched => ({ result: notSearched(why), first: null, last: null })

/** The direct reader's view of `path`, or why the carver cannot read it. */
function openForSearch(path: string): DirectChain | string {
  try {
    return openDirect(path)
  } catch (e) {
    if (e instanceof AuditError) throw e
    return e instanceof Unsupported ? `the file reader does not read this file (${e.message})` : oneLine(e)
  }
}

/** Search the files of `path` (or of `chain`, already open on it) in one go. */
export function searchFiles(
  path: string,
  keys: KeyMaterial[],
  opts: RecoverOptions & { chain?: DirectChain } = {},
): Searched {
  const chain = opts.chain ?? openForSearch(path)
  if (typeof chain === 'string') return unread(chain)
  let live: LiveChain | null = null
  try {
    live = directLive(chain)
    return { result: recoverWith(chain, live, keys, opts), first: live.first, last: live.last }
  } catch (e) {
    if (e instanceof AuditError) throw e
    return unread(`a page could not be read (${oneLine(e)})`)
  } finally {
    live?.close()
  }
}

/** Search a chain file given by path in one go; a file the direct reader declines is reported as not searched. */
export function recoverFile(path: string, keys: KeyMaterial[], opts: RecoverOptions = {}): RecoveryResult {
  return searchFiles(path, keys, opts).result
}

/**
 * Search a chain file given by path; a file the direct reader declines (a hot journal) is searched
 * all the same, its live rows read from the verified private copy SQLite rolls back (./declined.ts).
 */
export async function recoverPath(
  path: string,
  keys: KeyMaterial[],
  opts: RecoverOptions = {},
): Promise<RecoveryResult> {
  let chain: DirectChain
  const throughCopy = async (): Promise<RecoveryResult> => {
    const file = await ChainFile.open(path)
    try {
      return (await searchEvidence(file.snapshot, keys, opts)).result
    } finally {
      file.close()
    }
  }
  try {
    chain = openDirect(path)
  } catch (e) {
    if (e instanceof AuditError) throw e
    if (!(e instanceof Unsupported)) return notSearched(oneLine(e))
    return throughCopy()
  }
  // Short records SQLite completes with a DEFAULT: searched as searchEvidence searches them.
  if (chain.spec.minFields > 0) {
    chain.close()
    return throughCopy()
  }
  try {
    return searchFiles(path, keys, { ...opts, chain }).result
  } finally {
    chain.close()
  }
}

export interface RunningSearch {
  /** With `fed`: the tap to hand the evidence hash (./fed-carving.ts); the carving waits for it. */
  tap?: FileTap
  /**
   * What the search found (waits for the carving to end), the files released. `liveBodyBad`: seqs
   * whose live body does not hash right (verify's body_hash_mismatch findings).
   */
  done(liveBodyBad?: ReadonlySet<bigint>): Promise<Searched>
  /** Stop the search and release its files. */
  abort(): void
}

/**
 * Start searching the files of `chain`: the carving runs on this thread in slices, between the
 * moments the event loop is needed (verify's workers, progress, cancel); the live chain is asked
 * about the recovered rows once `done` is awaited (after verify, whose leaf list it reuses).
 */
export function startRecovery(
  chain: DirectChain,
  keys: KeyMaterial[],
  opts: RecoverOptions & { fed?: boolean } = {},
): RunningSearch {
  return startSearch(targetOf(chain), () => directLive(chain), keys, opts)
}

/** startRecovery over any target: `liveOf` gives the live chain, `release` is called once at the end. */
function startSearch(
  target: SearchTarget,
  liveOf: () => LiveChain,
  keys: KeyMaterial[],
  opts: RecoverOptions & { fed?: boolean },
  release: () => void = () => undefined,
): RunningSearch {
  let stopped = false
  const signal = {
    get aborted(): boolean {
      return stopped || (opts.signal?.aborted ?? false)
    },
  }
  let search: Search
  try {
    search = new Search(target, { signal })
  } catch (e) {
    release()
    if (e instanceof AuditError) throw e
    const why = oneLine(e)
    return { done: async () => unread(why), abort: () => undefined }
  }
  const fed = opts.fed ? carveFed(search) : null
  const carving = (fed ? fed.carving : search.carveInSlices()).then(
    () => null,
    (e: unknown) => e,
  )
  return {
    ...(fed ? { tap: fed.tap } : {}),
    async done(liveBodyBad) {
      const failed = await carving
      let live: LiveChain | null = null
      try {
        if (failed) {
          if (failed instanceof AuditError) throw failed
          return unread(`a page could not be read (${oneLine(failed)})`)
        }
        live = liveOf()
        return { result: search.prove(live, keys, liveBodyBad), first: live.first, last: live.last }
      } catch (e) {
        if (e instanceof AuditError) throw e
        return unread(`a page could not be read (${oneLine(e)})`)
      } finally {
        live?.close()
        search.close()
        release()
      }
    },
    abort() {
      stopped = true
      fed?.stop()
      void carving.then(() => {
        search.close()
        release()
      })
    },
  }
}

/** `verdict` with what `found` proves (unchanged when the files were not searched, but for the note). */
export function verdictWith(
  verdict: VerifyVerdict,
  found: Searched,
  ctx: RecoveryContext = {},
): VerifyVerdict {
  if (verdict.cancelled) return verdict
  if (!found.result.summary.searched)
    return {
      ...verdict,
      recovery: found.result.summary,
      recovered: [],
      ...(ctx.segments ? { segments: ctx.segments.paths } : {}),
    }
  return applyRecovery(verdict, found.result, found, ctx)
}

/**
 * Seqs whose live body does not hash to its canonical_hash, from verify's findings. Counted in
 * BigInt: past 2^53 a double's `s++` gives `s` again (the spacing of doubles there is 2), and a
 * finding at seq 2^53 + 1 looped for ever.
 */
export function bodyBadSeqs(verdict: VerifyVerdict): Set<bigint> {
  const out = new Set<bigint>()
  for (const f of verdict.findings)
    if (f.kind === 'body_hash_mismatch' && f.to_seq - f.from_seq < 1_000_000)
      for (let s = BigInt(f.from_seq); s <= BigInt(f.to_seq); s++) out.add(s)
  return out
}

/**
 * Search the evidence a chain was opened from, through the descriptors its snapshot holds — never the
 * private copy (SQLite recovered the copy's WAL into it, so the frames and superseded pages recovery
 * reads are gone there), and never a second open by name.
 */
export async function searchEvidence(
  snapshot: Pick<Snapshot, 'files' | 'dbPath'>,
  keys: KeyMaterial[],
  opts: RecoverOptions = {},
  liveBodyBad?: ReadonlySet<bigint>,
): Promise<Searched> {
  let chain: DirectChain
  try {
    chain = directFrom(snapshot.files)
  } catch (e) {
    if (e instanceof AuditError) throw e
    if (!(e instanceof Unsupported)) return unread(oneLine(e))
    return searchDeclined(snapshot, e.message, keys, opts, liveBodyBad)
  }
  // Its short records would stop the live rows' reading (./declined.ts DEFAULTED), and the search with it.
  if (chain.spec.minFields > 0) {
    chain.close()
    return searchDeclined(snapshot, DEFAULTED, keys, opts, liveBodyBad)
  }
  return startRecovery(chain, keys, opts).done(liveBodyBad)
}

/**
 * The evidence the direct reader declined (`why`: a hot journal, say) searched all the same: its
 * bytes as they are, against the live rows of the private copy SQLite made of it (./declined.ts).
 */
async function searchDeclined(
  snapshot: Pick<Snapshot, 'files' | 'dbPath'>,
  why: string,
  keys: KeyMaterial[],
  opts: RecoverOptions,
  liveBodyBad?: ReadonlySet<bigint>,
): Promise<Searched> {
  const copy = openCopyDirect(snapshot.dbPath, snapshot.files.db.stat)
  if (typeof copy === 'string') return unread(copy)
  let target: SearchTarget | string
  try {
    target = declinedTarget(snapshot.files, copy, why)
  } catch (e) {
    copy.release()
    throw e
  }
  if (typeof target === 'string') {
    copy.release()
    return unread(target)
  }
  const liveOf = (): LiveChain => {
    const live = directLive(copy.chain)
    // A plain view's pages are not the evidence's: no live row is placed on a page by them.
    if (copy.plain) live.pageOf = () => null
    return live
  }
  return startSearch(target, liveOf, keys, opts, () => copy.release()).done(liveBodyBad)
}
