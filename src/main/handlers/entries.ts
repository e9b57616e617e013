// The handlers that browse the chain's rows: a page of entries in a sort and filter, where a seq
// stands in that order, one entry, and the timeline's buckets.
import type { ApiName } from '../../shared/contract'
import { positionOfSeq } from '../chain/chain-index'
import { buildTimeline, clippedForList, getEntry, listEntries } from '../chain/views'
import { MAX_SEQ_TIMES, seqGaps, seqTimes } from '../chain/seq-facts'
import { AuditError } from '../base/errors'
import { MAX_NAMES_PAGE } from '../../shared/chain-types'
import { findNames } from '../chain/name-counts'
import type { AuditSession } from '../session/session'
import { ENTRY_SORTS, filterFrom, NAME_CHARS, timelineFilterFrom } from './filter-request'
import type { HandlerTable } from './handler-types'
import { int, obj, optBool, optEnum, optInt, optNs, optObj, optStr } from './validate'

type EntryCall = Extract<
  ApiName,
  'listEntries' | 'locateEntry' | 'getEntry' | 'seqGaps' | 'listNames' | 'seqTimes' | 'timeline'
>

const NAME_FIELDS = ['provider', 'model'] as const
/** A search text typed into a name filter: a part of a name, not a whole megabyte one. */
export const NAME_QUERY_CHARS = 64 * 1024

export function entryHandlers(session: AuditSession): Pick<HandlerTable, EntryCall> {
  return {
    listEntries: async (req) => {
      const o = obj(req)
      const offset = int(o, 'offset', { min: 0 })
      const limit = int(o, 'limit', { min: 1, max: 1000 })
      const sort = optEnum(o, 'sort', ENTRY_SORTS) ?? 'seq_asc'
      const src = await session.entrySource(filterFrom(optObj(o, 'filter')), sort)
      const page = listEntries(
        src.rows,
        src.positions(sort),
        src.index,
        offset,
        limit,
        src.positions('seq_asc'),
      )
      return { ...page, rows: page.rows.map(clippedForList) }
    },
    locateEntry: async (req) => {
      const o = obj(req)
      const seq = int(o, 'seq')
      const sort = optEnum(o, 'sort', ENTRY_SORTS) ?? 'seq_asc'
      const src = await session.entrySource(filterFrom(optObj(o, 'filter')), sort)
      const pos = positionOfSeq(src.index, seq)
      if (pos === null) return { index: null }
      const i = src.positions(sort).indexOf(pos)
      return { index: i < 0 ? null : i }
    },
    getEntry: async (req) => {
      const src = await session.entrySource()
      return getEntry(src.rows, src.index, int(obj(req), 'seq'))
    },
    seqGaps: async (req) => {
      const from = optInt(obj(req), 'from_index', { min: 0 }) ?? 0
      return seqGaps((await session.entrySource()).index, from)
    },
    listNames: async (req) => {
      const o = obj(req)
      const field = optEnum(o, 'field', NAME_FIELDS)
      if (field === undefined)
        throw new AuditError('bad_argument', `field must be one of ${NAME_FIELDS.join(', ')}`)
      const query = optStr(o, 'query', NAME_QUERY_CHARS) ?? ''
      const offset = optInt(o, 'offset', { min: 0 }) ?? 0
      const limit = optInt(o, 'limit', { min: 1, max: MAX_NAMES_PAGE }) ?? MAX_NAMES_PAGE
      // A whole name may be megabytes: one per answer, as getEntry gives one row's whole values.
      const whole = optBool(o, 'whole') ?? false
      if (whole && limit !== 1)
        throw new AuditError('bad_argument', 'whole names are given one at a time (limit 1)')
      return findNames(session.view().index, field, query, offset, limit, whole)
    },
    seqTimes: async (req) => {
      const o = obj(req)
      const list = o['seqs']
      if (!Array.isArray(list) || list.length > MAX_SEQ_TIMES)
        throw new AuditError('bad_argument', `seqs must be an array of at most ${MAX_SEQ_TIMES} seqs`)
      const seqs = list.map((v: unknown, i) => int({ [`seqs[${i}]`]: v }, `seqs[${i}]`))
      // The timeline's filters: only the seqs its points count (the replay marks drawn on it).
      const f = timelineFilterFrom(optObj(o, 'filter'))
      return seqTimes(
        (await session.entrySource()).index,
        seqs,
        f,
        f.flagged_only ? session.flaggedSeqs() : null,
        session.searchSeqs(f.search_id),
      )
    },
    timeline: async (req) => {
      const o = obj(req)
      const t: Parameters<typeof buildTimeline>[1] = { buckets: int(o, 'buckets', { min: 1, max: 2000 }) }
      const from = optNs(o, 'from_ns')
      const to = optNs(o, 'to_ns')
      const provider = optStr(o, 'provider', NAME_CHARS)
      const model = optStr(o, 'model', NAME_CHARS)
      if (from !== undefined) t.from_ns = from
      if (to !== undefined) t.to_ns = to
      if (provider !== undefined) t.provider = provider
      if (model !== undefined) t.model = model
      if (optBool(o, 'flagged_only')) t.flagged_only = true
      const search = optStr(o, 'search_id', 100)
      if (search !== undefined) t.search_id = search
      return buildTimeline(
        session.view().index,
        t,
        t.flagged_only ? session.flaggedSeqs() : null,
        session.searchSeqs(t.search_id),
      )
    },
  }
}
