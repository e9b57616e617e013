// What the auditor is looking at: provider / model / flagged filters, the time range picked on the
// timeline, and the table's sort. One reducer; the API requests are derived from it.
import type { EntryFilter, EntrySort, EntrySortColumn, TimelineRequest } from '../../../shared/chain-types'
import { sortParts } from '../../../shared/entry-sorts'
import { shownName } from './format'

export interface TimeRange {
  from_ns: string
  to_ns: string
}

export interface ViewState {
  provider: string | null
  model: string | null
  flaggedOnly: boolean
  /** Time range selected with the timeline's brush; null = the whole chain. */
  range: TimeRange | null
  /** Only the rows a finished search found (its search_id); null = no search applied. */
  searchId: string | null
  /** The table's "filter by this value" on a span name or a status (null: not filtered). */
  spanName: string | null
  status: string | null
  sort: EntrySort
}

export type ViewAction =
  | { type: 'provider'; value: string | null }
  | { type: 'model'; value: string | null }
  | { type: 'flagged'; value: boolean }
  | { type: 'range'; value: TimeRange | null }
  | { type: 'search'; value: string | null }
  | { type: 'spanName'; value: string | null }
  | { type: 'status'; value: string | null }
  | { type: 'sort'; value: EntrySort }
  /** Clicking a sortable column: same column flips direction, another column starts ascending. */
  | { type: 'sortBy'; column: EntrySortColumn }
  | { type: 'reset' }

export const initialView: ViewState = {
  provider: null,
  model: null,
  flaggedOnly: false,
  range: null,
  searchId: null,
  spanName: null,
  status: null,
  sort: 'seq_asc',
}

export function viewReducer(s: ViewState, a: ViewAction): ViewState {
  switch (a.type) {
    case 'provider':
      return s.provider === a.value ? s : { ...s, provider: a.value || null }
    case 'model':
      return s.model === a.value ? s : { ...s, model: a.value || null }
    case 'flagged':
      return s.flaggedOnly === a.value ? s : { ...s, flaggedOnly: a.value }
    case 'range': {
      const same =
        s.range === a.value ||
        (s.range !== null &&
          a.value !== null &&
          s.range.from_ns === a.value.from_ns &&
          s.range.to_ns === a.value.to_ns)
      return same ? s : { ...s, range: a.value }
    }
    case 'search':
      return s.searchId === a.value ? s : { ...s, searchId: a.value }
    case 'spanName':
      return s.spanName === a.value ? s : { ...s, spanName: a.value }
    case 'status':
      return s.status === a.value ? s : { ...s, status: a.value }
    case 'sort':
      return s.sort === a.value ? s : { ...s, sort: a.value }
    case 'sortBy': {
      const { column: col, desc } = sortParts(s.sort)
      const next: EntrySort = col === a.column && !desc ? `${a.column}_desc` : `${a.column}_asc`
      return { ...s, sort: next }
    }
    case 'reset':
      return initialView
  }
}

/** The listing filter for listEntries / locateEntry (undefined when nothing is filtered). */
export function entryFilter(s: ViewState): EntryFilter | undefined {
  const f: EntryFilter = {}
  if (s.provider !== null) f.provider = s.provider
  if (s.model !== null) f.model = s.model
  if (s.flaggedOnly) f.flagged_only = true
  if (s.range !== null) {
    f.from_ns = s.range.from_ns
    f.to_ns = s.range.to_ns
  }
  if (s.searchId !== null) f.search_id = s.searchId
  if (s.spanName !== null) f.span_name = s.spanName
  if (s.status !== null) f.status = s.status
  return Object.keys(f).length > 0 ? f : undefined
}

/** The whole-chain timeline request (the brush picks inside it, so no range here). */
export function timelineRequest(s: ViewState, buckets: number): TimelineRequest {
  const r: TimelineRequest = { buckets }
  if (s.provider !== null) r.provider = s.provider
  if (s.model !== null) r.model = s.model
  if (s.flaggedOnly) r.flagged_only = true
  if (s.searchId !== null) r.search_id = s.searchId
  return r
}

/** The charts' request: the same filters, restricted to the selected range. */
export function rangeTimelineRequest(s: ViewState, buckets: number): TimelineRequest {
  const r = timelineRequest(s, buckets)
  if (s.range !== null) {
    r.from_ns = s.range.from_ns
    r.to_ns = s.range.to_ns
  }
  return r
}

/** A stable key for caches (one page cache per listing). */
export function listingKey(s: ViewState): string {
  return JSON.stringify([s.sort, entryFilter(s) ?? {}])
}

/**
 * Short human description of the active filters (for the table header and the status bar): each
 * name as shownName() clips it — a filter holds a chain's name whole, megabytes if its writer chose.
 */
export function describeView(s: ViewState): string {
  const parts: string[] = []
  if (s.provider !== null) parts.push(`provider ${shownName(s.provider)}`)
  if (s.model !== null) parts.push(`model ${shownName(s.model)}`)
  if (s.flaggedOnly) parts.push('flagged only')
  if (s.range !== null) parts.push('time range')
  if (s.searchId !== null) parts.push('search results')
  if (s.spanName !== null) parts.push(`span ${shownName(s.spanName)}`)
  if (s.status !== null) parts.push(`status ${shownName(s.status)}`)
  return parts.length === 0 ? 'all entries' : parts.join(' · ')
}
