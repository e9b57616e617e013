// An entry filter as a request gives it (`filter` of listEntries, locateEntry, exportView…), checked
// field by field: the one reading of it for every call that takes one.
import type { ApiName } from '../../shared/contract'
import type { EntryFilter, TimelineFilter } from '../../shared/chain-types'
import { optBool, optNs, optStr, type Obj } from './validate'

/** The orders a request may name (`sort` of listEntries, locateEntry, exportView…): every column's. */
export { ENTRY_SORTS } from '../../shared/entry-sorts'

/**
 * The longest provider, model, span name or status a filter takes: a name the chain holds is the
 * writer's to make as long as it likes, and the filter bar and "filter by this value" send it back
 * whole (a 1,000-character cap made every longer name offered on screen fail when chosen: 'filter.model
 * is longer than 1000 characters'). Web mode takes the bodies of the calls that carry one
 * (FILTER_CALLS) up to its largest limit (96 MiB: a name of NAME_CHARS as JSON escapes at most).
 */
export const NAME_CHARS = 16 * 1024 * 1024

/** The calls whose request carries a name of the chain's as a filter (filterFrom, timelineFilterFrom, their own fields). */
export const FILTER_CALLS: readonly ApiName[] = [
  'listEntries',
  'locateEntry',
  'seqTimes',
  'timeline',
  'exportView',
  'saveViewExport',
  'startDriftSeries',
]

export function filterFrom(o: Obj | undefined): EntryFilter | undefined {
  if (!o) return undefined
  const f: EntryFilter = {}
  const provider = optStr(o, 'provider', NAME_CHARS)
  const model = optStr(o, 'model', NAME_CHARS)
  const flagged = optBool(o, 'flagged_only')
  const from = optNs(o, 'from_ns')
  const to = optNs(o, 'to_ns')
  if (provider !== undefined) f.provider = provider
  if (model !== undefined) f.model = model
  if (flagged) f.flagged_only = true
  if (from !== undefined) f.from_ns = from
  if (to !== undefined) f.to_ns = to
  const search = optStr(o, 'search_id', 100)
  if (search !== undefined) f.search_id = search
  const span = optStr(o, 'span_name', NAME_CHARS)
  const status = optStr(o, 'status', NAME_CHARS)
  if (span !== undefined) f.span_name = span
  if (status !== undefined) f.status = status
  return f
}

/** The timeline's filters (`timeline`'s own fields, `filter` of seqTimes), checked as filterFrom does. */
export function timelineFilterFrom(o: Obj | undefined): TimelineFilter {
  const f: TimelineFilter = {}
  if (!o) return f
  const provider = optStr(o, 'provider', NAME_CHARS)
  const model = optStr(o, 'model', NAME_CHARS)
  const search = optStr(o, 'search_id', 100)
  if (provider !== undefined) f.provider = provider
  if (model !== undefined) f.model = model
  if (optBool(o, 'flagged_only')) f.flagged_only = true
  if (search !== undefined) f.search_id = search
  return f
}
