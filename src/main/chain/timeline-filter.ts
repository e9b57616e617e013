// Which rows the timeline's points count: its provider, model, flagged-only and search filters (the
// time span aside). One test for the timeline's buckets and for what is drawn on them (the replay
// marks, issue 35), so a mark is never shown where the filtered timeline has no point.
import type { TimelineFilter } from '../../shared/chain-types'
import type { ChainIndex } from './chain-index'

/**
 * A test of index position `i` against the filter. `flagged`: the session's flagged seqs (asked only
 * with `flagged_only`); `found`: the seqs a finished search found (asked only with `search_id`; null
 * when that search is unknown: nothing passes).
 */
export function timelineRowTest(
  idx: ChainIndex,
  f: TimelineFilter,
  flagged: ReadonlySet<number> | null,
  found: ReadonlySet<number> | null,
): (i: number) => boolean {
  // -2: no such filter; -1: a name the chain does not hold (no row passes).
  const providerId = f.provider !== undefined ? idx.providerNames.indexOf(f.provider) : -2
  const modelId = f.model !== undefined ? idx.modelNames.indexOf(f.model) : -2
  const flaggedOnly = f.flagged_only === true
  const search = f.search_id !== undefined
  return (i) =>
    (providerId === -2 || idx.provider[i] === providerId) &&
    (modelId === -2 || idx.model[i] === modelId) &&
    (!flaggedOnly || flagged?.has(idx.seq[i]!) === true) &&
    (!search || found?.has(idx.seq[i]!) === true)
}
