// Which providers a timeline counts one by one (Timeline.providers): a chain may name a provider per
// row, each name megabytes long, and every bucket named each of them with its count (10^5 names in
// the answer, a megabyte name again in each of 2,000 buckets). At most TIMELINE_PROVIDERS, the most
// rows first (ties by name, in UTF-16 code unit order), each clipped to LIST_TEXT_UNITS; a provider
// whose clipped name is one already kept is folded with the rest, so no band stands for two.
import { TIMELINE_PROVIDERS, type NamesLeft } from '../../shared/chain-types'
import { clipText } from './clip-text'

export interface ProviderFold {
  /** Per provider id: its key in `by_provider`, or null when folded (or without rows). */
  key: (string | null)[]
  /** The keys kept, in name order. */
  providers: string[]
  clipped: string[]
  left: NamesLeft | null
}

/** `names[p]` has `totals[p]` rows in the timeline. */
export function foldProviders(names: readonly string[], totals: Float64Array): ProviderFold {
  const ids: number[] = []
  for (let p = 0; p < names.length; p++) if (totals[p]! > 0) ids.push(p)
  const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
  ids.sort((a, b) => totals[b]! - totals[a]! || byName(names[a]!, names[b]!))
  const key = new Array<string | null>(names.length).fill(null)
  const kept = new Set<string>()
  const clipped: string[] = []
  let leftNames = 0
  let leftRows = 0
  for (const p of ids) {
    const k = clipText(names[p]!)
    if (kept.size < TIMELINE_PROVIDERS && !kept.has(k)) {
      kept.add(k)
      key[p] = k
      if (k.length !== names[p]!.length) clipped.push(k)
    } else {
      leftNames++
      leftRows += totals[p]!
    }
  }
  return {
    key,
    providers: [...kept].sort(byName),
    clipped: clipped.sort(byName),
    left: leftNames > 0 ? { names: leftNames, rows: leftRows } : null,
  }
}
