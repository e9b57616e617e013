// How the session opens a chain. In place first: the direct reader on the evidence's own
// descriptors, read-only, nothing copied (../chain/source/in-place-chain.ts), the evidence hashed
// once in the background. A chain of many rows answers after a first pass over seq and timestamps
// (the overview, timeline and first rows), its full index following in the background. Only a file
// the direct reader declines — a hot journal SQLite would roll back, a shape it does not read
// exactly as SQLite does — is read through a verified private copy, and its record says why.
import type { OpenOptions } from '../chain/evidence-files'
import { buildChainIndex, type ChainIndex } from '../chain/chain-index'
import { endWorkers, startColumnWorkers } from '../chain/columns/parallel'
import { QUICK_COLUMNS } from '../chain/columns/types'
import { directAllowed, openDirect } from '../chain/direct/open'
import { DirectSource } from '../chain/source/direct-source'
import type { HeldChain } from '../chain/source/held-chain'
import { InPlaceChain } from '../chain/source/in-place-chain'
import { OpenedChain } from '../chain/source/opened-chain'
import type { FileFacts } from '../chain/source/row-source'
import { AuditError, oneLine } from '../base/errors'

export type Progress = (done: number, total: number) => void

/** The first pass in place: the chain, what it read, and whether its index is the full one. */
export interface InPlaceOpen {
  chain: InPlaceChain
  facts: FileFacts
  index: ChainIndex
  complete: boolean
}

/** A chain read through its private copy, fully indexed. */
export interface CopyOpen {
  chain: OpenedChain
  facts: FileFacts
  index: ChainIndex
}

/** Why the direct reader's refusal sends a file to the copy, in the evidence record's words. */
export function declineReason(e: unknown): string {
  const why = oneLine(e)
  if (why === 'hot journal')
    return 'it has a hot -journal, which SQLite rolls back before it reads the chain (the direct file reader never applies one)'
  return `the direct file reader does not read this file exactly as SQLite would (${why})`
}

/** The verified private copy of `path`, its record saying `because`. */
function copyOf(path: string, because: string, opts: OpenOptions): Promise<OpenedChain> {
  return OpenedChain.open(path, { copy: opts.policy ? { policy: opts.policy } : {}, because })
}

/**
 * The chain at `path` read in place; a chain estimated at `stagedRows` rows or more gets the quick
 * index only (seq and timestamps). `{ declined }` when the direct reader does not take the file.
 */
export async function openInPlace(
  path: string,
  opts: OpenOptions,
  stagedRows: number,
  onProgress: Progress | undefined,
): Promise<InPlaceOpen | { declined: string }> {
  if (!directAllowed()) return { declined: 'BIJOTEL_READER=sqlite turns the direct file reader off' }
  let chain: InPlaceChain
  try {
    chain = new InPlaceChain(DirectSource.owning(openDirect(path, opts)), {
      toCopy: (because) => copyOf(path, because, opts),
    })
  } catch (e) {
    if (e instanceof AuditError) throw e
    return { declined: declineReason(e) }
  }
  const hooks = onProgress ? { onProgress } : {}
  // The first pass's workers load their code while the leaves are listed; buildChainIndex ends them.
  const early = startColumnWorkers(chain.source, QUICK_COLUMNS)
  let ended = false
  try {
    const facts = chain.source.facts()
    if (chain.source.estimateRows() < stagedRows) {
      endWorkers(early)
      ended = true
      chain.startHash() // few rows: the hash runs beside the index, and the open waits for both
      return { chain, facts, index: await buildChainIndex(chain.source, hooks), complete: true }
    }
    const index = await buildChainIndex(chain.source, hooks, QUICK_COLUMNS, early)
    chain.startHash()
    return { chain, facts, index, complete: false }
  } catch (e) {
    if (!ended) endWorkers(early)
    chain.close()
    if (e instanceof AuditError) throw e
    return { declined: declineReason(e) }
  }
}

/** The full index of a chain held (the background stage of a staged open). */
export function fullIndex(chain: HeldChain): Promise<ChainIndex> {
  return chain.read((source) => buildChainIndex(source))
}

/** The chain at `path` through its verified private copy, fully indexed. */
export async function openThroughCopy(
  path: string,
  because: string,
  opts: OpenOptions,
  onProgress: Progress | undefined,
): Promise<CopyOpen> {
  const chain = await copyOf(path, because, opts)
  try {
    const index = await chain.read((source) => buildChainIndex(source, onProgress ? { onProgress } : {}))
    return { chain, facts: chain.copy.facts(), index }
  } catch (e) {
    chain.close()
    throw e
  }
}
