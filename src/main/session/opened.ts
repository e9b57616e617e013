// What the session holds of the chain open now: the chain (read in place, or through its private
// copy), the index behind the overview, timeline and table, and the entry rows by seq — and, while
// a large chain is still opening, the first pass's part of it.
import type { ChainIdentity } from '../../shared/app-events'
import type { ChainOverview } from '../../shared/chain-types'
import type { ChainIndex } from '../chain/chain-index'
import type { HeldChain } from '../chain/source/held-chain'
import type { FileFacts } from '../chain/source/row-source'
import { buildOverview, overviewMeta, sourceEntryRows, type EntryRows } from '../chain/views'

export interface Opened {
  openId: number
  chain: HeldChain
  index: ChainIndex
  /** Built on each read: the evidence record as the chain knows it now (hashes, changed). */
  readonly overview: ChainOverview
  /** Entry rows by seq, through the chain's source (read in place: checked unchanged after). */
  rows: EntryRows
}

/** A chain being opened in stages: what the first pass gives, and the rest to come. */
export interface PendingOpen {
  openId: number
  readonly overview: ChainOverview
  /** The first pass's index: seq and timestamps only. */
  index: ChainIndex
  done: Promise<Opened>
  /** The chain the first pass read; the same chain serves the table until the open is done. */
  chain: HeldChain
}

/** The overview of `index` with the chain's evidence record as it is now. */
function overviewOf(chain: HeldChain, facts: FileFacts, index: ChainIndex): () => ChainOverview {
  const base = buildOverview(overviewMeta(facts), index)
  return () => ({ ...base, evidence: chain.evidence() })
}

export function entryRowsOf(chain: HeldChain): EntryRows {
  return (seqs) => chain.readNow((source) => sourceEntryRows(source)(seqs))
}

export function openedOf(openId: number, chain: HeldChain, facts: FileFacts, index: ChainIndex): Opened {
  const overview = overviewOf(chain, facts, index)
  return {
    openId,
    chain,
    index,
    get overview() {
      return overview()
    },
    rows: entryRowsOf(chain),
  }
}

export function pendingOf(
  openId: number,
  chain: HeldChain,
  facts: FileFacts,
  index: ChainIndex,
  done: Promise<Opened>,
): PendingOpen {
  const overview = overviewOf(chain, facts, index)
  return {
    openId,
    chain,
    index,
    done,
    get overview() {
      return { ...overview(), pending: true }
    },
  }
}

export function identityOf(openId: number, overview: ChainOverview): ChainIdentity {
  const db = overview.evidence.db
  return { open_id: openId, path: db.path, sha256: db.sha256 ? db.sha256 : null }
}
