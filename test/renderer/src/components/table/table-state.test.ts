// @vitest-environment jsdom
// The table's state outside React: sort clicks (any column; again reverses), filter-by-value in the
// view state, the column layout stored per column set (hostile storage gives the defaults), the
// copies' text (TSV of the shown columns, a missing value empty, never 0) and the menu's filters.
import { afterEach, describe, expect, it } from 'vitest'
import type { EntrySummary } from '../../../../../src/shared/chain-types'
import { ENTRY_SORT_COLUMNS, sortParts } from '../../../../../src/shared/entry-sorts'
import {
  describeView,
  entryFilter,
  initialView,
  listingKey,
  viewReducer,
} from '../../../../../src/renderer/src/lib/filter-state'
import {
  COLUMNS,
  MAX_WIDTH,
  MIN_WIDTH,
  rowTsv,
} from '../../../../../src/renderer/src/components/table/columns'
import {
  columnSetKey,
  defaultPrefs,
  loadPrefs,
  parsePrefs,
  savePrefs,
  shownColumns,
  withHidden,
  withWidth,
} from '../../../../../src/renderer/src/components/table/column-prefs'
import { menuItems } from '../../../../../src/renderer/src/components/table/row-actions'
import { mulberry32 } from '../../../../main/testing/prng'

afterEach(() => localStorage.clear())

const row = (o: Partial<EntrySummary> = {}): EntrySummary => ({
  seq: 7,
  timestamp_ns: '1700000000000000000',
  time: '2023-11-14T22:13:20.000Z',
  span_name: 'chat',
  span_kind: 'CLIENT',
  provider: 'openai',
  model: null,
  canonical_hash: 'c'.repeat(64),
  has_replay: false,
  hmac_hash: 'h'.repeat(64),
  input_tokens: null,
  output_tokens: 0,
  cost_usd: null,
  latency_ns: null,
  status: 'OK',
  delta_ns: null,
  ...o,
})

describe('sorting from the headers', () => {
  it('every column sorts; a click on the sorted column reverses, another column starts ascending', () => {
    for (const column of ENTRY_SORT_COLUMNS) {
      const once = viewReducer(initialView, { type: 'sortBy', column })
      const twice = viewReducer(once, { type: 'sortBy', column })
      const thrice = viewReducer(twice, { type: 'sortBy', column })
      // seq starts ascending already: its first click reverses.
      expect(sortParts(once.sort)).toEqual({ column, desc: column === 'seq' })
      expect(sortParts(twice.sort)).toEqual({ column, desc: column !== 'seq' })
      expect(thrice.sort).toBe(once.sort)
      expect(listingKey(once)).not.toBe(listingKey(twice))
    }
  })
})

describe('filter by this value', () => {
  it('span name and status join the listing filter and its description, and clear', () => {
    let s = viewReducer(initialView, { type: 'spanName', value: 'a\tb' })
    s = viewReducer(s, { type: 'status', value: 'ERROR' })
    expect(entryFilter(s)).toEqual({ span_name: 'a\tb', status: 'ERROR' })
    expect(describeView(s)).toBe('span a\tb · status ERROR')
    s = viewReducer(s, { type: 'spanName', value: null })
    expect(entryFilter(s)).toEqual({ status: 'ERROR' })
    expect(entryFilter(viewReducer(s, { type: 'reset' }))).toBeUndefined()
  })

  it('the menu offers a filter only for a value the row has', () => {
    const labels = (r: EntrySummary): string[] =>
      menuItems(
        r,
        COLUMNS[0]!,
        COLUMNS,
        () => undefined,
        () => undefined,
      ).map((i) => i.label)
    expect(labels(row())).toEqual(
      expect.arrayContaining(['Filter: provider = openai', 'Filter: span = chat', 'Filter: status = OK']),
    )
    // No model (null), no status, an empty span name: nothing to filter on.
    const none = labels(row({ status: null, span_name: '' }))
    expect(none.filter((l) => l.startsWith('Filter:'))).toEqual(['Filter: provider = openai'])
    // The staged open's placeholder provider is not a value.
    expect(labels(row({ provider: '(indexing…)' })).some((l) => l.includes('indexing'))).toBe(false)
  })
})

describe('copies', () => {
  it('a missing value copies empty, a recorded 0 as 0; tabs and newlines inside a value become spaces', () => {
    const cols = COLUMNS.filter((c) =>
      ['seq', 'span', 'input_tokens', 'output_tokens', 'cost'].includes(c.id),
    )
    expect(rowTsv(row({ span_name: 'a\tb\nc' }), cols)).toBe('7\ta b c\t\t0\t')
  })

  it('a generated row always gives one field per shown column', () => {
    const rnd = mulberry32(35)
    const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!
    for (let i = 0; i < 300; i++) {
      const r = row({
        span_name: pick(['', '\t', '\n\r', 'x\ty', '\u{1F600}']),
        model: pick([null, 'm\tx', '']),
        input_tokens: pick([null, 0, 1.5, -1]),
        latency_ns: pick([null, '0', '-5', '99999999999999999999']),
        delta_ns: pick([null, '1', '-1']),
      })
      const cols = COLUMNS.filter(() => rnd() < 0.7)
      expect(rowTsv(r, cols).split('\t')).toHaveLength(Math.max(1, cols.length))
    }
  })
})

describe('column layout in localStorage', () => {
  it('hidden columns and widths are stored per column set and read back', () => {
    let p = withHidden(defaultPrefs(), 'cost', true)
    p = withWidth(p, 'model', 333)
    savePrefs(p)
    expect(localStorage.getItem(columnSetKey())).not.toBeNull()
    expect(loadPrefs()).toEqual(p)
    expect(shownColumns(loadPrefs()).some((c) => c.id === 'cost')).toBe(false)
    // Another column set does not read this one's layout.
    expect(loadPrefs(COLUMNS.slice(1))).toEqual(defaultPrefs(COLUMNS.slice(1)))
  })

  it('widths are clamped and anything unreadable gives the defaults', () => {
    expect(withWidth(defaultPrefs(), 'seq', 1e9).widths['seq']).toBe(MAX_WIDTH)
    expect(withWidth(defaultPrefs(), 'seq', -4).widths['seq']).toBe(MIN_WIDTH)
    const hostile = [
      'not json',
      'null',
      '[]',
      '{"hidden":"cost"}',
      '{"hidden":[1,null,"nope","cost","cost"],"widths":{"seq":"9","model":1e400,"nope":5,"span":12}}',
    ]
    for (const text of hostile) {
      const p = parsePrefs(text)
      expect(p.hidden.every((id) => COLUMNS.some((c) => c.id === id))).toBe(true)
      expect(new Set(p.hidden).size).toBe(p.hidden.length)
      for (const [id, w] of Object.entries(p.widths)) {
        expect(COLUMNS.some((c) => c.id === id)).toBe(true)
        expect(w).toBeGreaterThanOrEqual(MIN_WIDTH)
        expect(w).toBeLessThanOrEqual(MAX_WIDTH)
      }
    }
    expect(parsePrefs(hostile[4]!)).toEqual({ hidden: ['cost'], widths: { span: MIN_WIDTH } })
  })
})
