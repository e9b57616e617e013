// An entry filter as a request gives it (`filter` of listEntries, locateEntry, exportView…), checked
// field by field: the one reading of it for every call that takes one.
import type { EntryFilter, TimelineFilter } from '../../shared/chain-types'
import { optBool, optNs, optStr, type Obj } from './validate'

/** The orders a request may name (`sort` of listEntries, locateEntry, exportView…): every column's. */
export { ENTRY_SORTS } from '../../shared/entry-sorts'

export function filterFrom(o: Obj | undefined): EntryFilter | undefined {
  if (!o) return undefined
  const f: EntryFilter = {}
  const provider = optStr(o, 'provider', 1000)
  const model = optStr(o, 'model', 1000)
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
  const span = optStr(o, 'span_name', 1000)
  const status = optStr(o, 'status', 1000)
  if (span !== undefined) f.span_name = span
  if (status !== undefined) f.status = status
  return f
}

/** The timeline's filters (`timeline`'s own fields, `filter` of seqTimes), checked as filterFrom does. */
export function timelineFilterFrom(o: Obj | undefined): TimelineFilter {
  const f: TimelineFilter = {}
  if (!o) return f
  const provider = optStr(o, 'provider', 1000)
  const model = optStr(o, 'model', 1000)
  const search = optStr(o, 'search_id', 100)
  if (provider !== undefined) f.provider = provider
  if (model !== undefined) f.model = model
  if (optBool(o, 'flagged_only')) f.flagged_only = true
  if (search !== undefined) f.search_id = search
  return f
}
