// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import {
  describeView,
  entryFilter,
  initialView,
  listingKey,
  rangeTimelineRequest,
  timelineRequest,
  viewReducer,
  type ViewState,
} from '../../../../src/renderer/src/lib/filter-state'

const apply = (...actions: Parameters<typeof viewReducer>[1][]): ViewState =>
  actions.reduce(viewReducer, initialView)

describe('view state', () => {
  it('starts unfiltered, seq ascending', () => {
    expect(entryFilter(initialView)).toBeUndefined()
    expect(describeView(initialView)).toBe('all entries')
    expect(timelineRequest(initialView, 200)).toEqual({ buckets: 200 })
  })

  it('builds the listing filter from the filters and the range', () => {
    const s = apply(
      { type: 'provider', value: 'openai' },
      { type: 'model', value: 'gpt-4o' },
      { type: 'flagged', value: true },
      { type: 'range', value: { from_ns: '10', to_ns: '20' } },
    )
    expect(entryFilter(s)).toEqual({
      provider: 'openai',
      model: 'gpt-4o',
      flagged_only: true,
      from_ns: '10',
      to_ns: '20',
    })
    expect(describeView(s)).toBe('provider openai · model gpt-4o · flagged only · time range')
    // The timelines narrow to the flagged rows too (the range stays out of the whole-chain one).
    expect(timelineRequest(s, 200)).toEqual({
      buckets: 200,
      provider: 'openai',
      model: 'gpt-4o',
      flagged_only: true,
    })
    expect(rangeTimelineRequest(s, 60)).toMatchObject({ flagged_only: true, from_ns: '10', to_ns: '20' })
  })

  it('keeps the brush range out of the whole-chain timeline, but in the charts’ request', () => {
    const s = apply(
      { type: 'provider', value: 'xai' },
      { type: 'range', value: { from_ns: '1', to_ns: '2' } },
    )
    expect(timelineRequest(s, 200)).toEqual({ buckets: 200, provider: 'xai' })
    expect(rangeTimelineRequest(s, 60)).toEqual({ buckets: 60, provider: 'xai', from_ns: '1', to_ns: '2' })
  })

  it('empty selections clear a filter', () => {
    const s = apply({ type: 'provider', value: 'openai' }, { type: 'provider', value: '' })
    expect(s.provider).toBeNull()
    expect(entryFilter(s)).toBeUndefined()
  })

  it('returns the same state for no-op actions (no refetch)', () => {
    const s = apply({ type: 'range', value: { from_ns: '1', to_ns: '2' } })
    expect(viewReducer(s, { type: 'range', value: { from_ns: '1', to_ns: '2' } })).toBe(s)
    expect(viewReducer(s, { type: 'flagged', value: false })).toBe(s)
    expect(viewReducer(initialView, { type: 'range', value: null })).toBe(initialView)
  })

  it('toggles sort direction per column', () => {
    let s = viewReducer(initialView, { type: 'sortBy', column: 'seq' })
    expect(s.sort).toBe('seq_desc')
    s = viewReducer(s, { type: 'sortBy', column: 'seq' })
    expect(s.sort).toBe('seq_asc')
    s = viewReducer(s, { type: 'sortBy', column: 'time' })
    expect(s.sort).toBe('time_asc')
    s = viewReducer(s, { type: 'sortBy', column: 'time' })
    expect(s.sort).toBe('time_desc')
  })

  it('keys listings by sort and filter only', () => {
    const a = apply({ type: 'provider', value: 'openai' })
    const b = apply({ type: 'provider', value: 'openai' })
    expect(listingKey(a)).toBe(listingKey(b))
    expect(listingKey(a)).not.toBe(
      listingKey(apply({ type: 'sort', value: 'time_desc' }, { type: 'provider', value: 'openai' })),
    )
    expect(viewReducer(a, { type: 'reset' })).toEqual(initialView)
  })
})
