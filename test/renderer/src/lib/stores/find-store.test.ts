// Search and export in the stores, against a fake engine: a finished search filters the view by its
// search_id (and clearing it stops), a failed one says why, an export downloads what the engine
// wrote for the view's filter and sort (web) or reports the saved path (desktop).
// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { JobStatus } from '../../../../../src/shared/job-types'
import type { SearchResult, ViewExportRequest } from '../../../../../src/shared/tools-types'
import { announcer } from '../../../../../src/renderer/src/lib/stores/announcer'
import { entryFilter, timelineRequest } from '../../../../../src/renderer/src/lib/filter-state'
import { WorkspaceStore } from '../../../../../src/renderer/src/lib/stores/workspace-store'
import { fakeApi, overviewOf } from '../../test/fake-api'

const chain = { open_id: 1, path: '/evidence/a.db', sha256: 'a'.repeat(64) }

function done<R>(kind: string, result: R): JobStatus<R> {
  return {
    id: 'j1',
    kind,
    state: 'done',
    progress: { done: 1, total: 1, phase: '' },
    started_at: '2026-01-01T00:00:00Z',
    result,
    error: null,
  }
}

afterEach(() => vi.restoreAllMocks())

describe('FindStore', () => {
  it('a finished search filters table and timeline by its search_id; clear lifts it', async () => {
    const found: SearchResult = {
      search_id: 's7',
      query: 'abc',
      fields: ['trace_id'],
      case_sensitive: false,
      scanned: 240,
      seqs: [3, 57],
      by_field: { trace_id: 2 },
    }
    const { api, calls } = fakeApi({ overrides: { startSearch: async () => done('search', found) } })
    const notes: string[] = []
    const ws = new WorkspaceStore(chain, api, overviewOf(240), {
      hasDialogs: false,
      notify: (t) => notes.push(t),
    })
    await ws.find.search('  abc ', ['trace_id'], false)
    expect(calls.find((c) => c.name === 'startSearch')?.req).toEqual({
      query: 'abc',
      fields: ['trace_id'],
      case_sensitive: false,
    })
    expect(ws.find.getState().result).toEqual(found)
    expect(entryFilter(ws.getState().view)).toEqual({ search_id: 's7' })
    expect(timelineRequest(ws.getState().view, 10)).toEqual({ buckets: 10, search_id: 's7' })
    expect(announcer.getState().last?.text).toBe('Search finished: 2 matching rows of 240 read.')
    ws.find.clear()
    expect(entryFilter(ws.getState().view)).toBeUndefined()
    ws.dispose()
  })

  it('says why a search failed, and refuses one with no field', async () => {
    const { api } = fakeApi({
      overrides: {
        startSearch: async () => ({
          ...done<SearchResult | null>('search', null),
          state: 'failed',
          error: 'bad query',
        }),
      },
    })
    const ws = new WorkspaceStore(chain, api, overviewOf(240), { hasDialogs: false, notify: () => undefined })
    await ws.find.search('x', [], false)
    expect(ws.find.getState().searchError).toBe('choose at least one field to search')
    await ws.find.search('x', ['body'], true)
    expect(ws.find.getState().searchError).toBe('bad query')
    expect(ws.getState().view.searchId).toBeNull()
    ws.dispose()
  })

  it('exports the rows in view: a download in web mode, the save dialog in the desktop app', async () => {
    const reqs: ViewExportRequest[] = []
    const { api } = fakeApi({
      overrides: {
        exportView: async (req) => {
          reqs.push(req)
          return {
            format: 'csv',
            file_name: 'view.csv',
            media_type: 'text/csv',
            rows: 2,
            content: 'seq\n1\n2\n',
          }
        },
        saveViewExport: async () => ({ path: '/cases/view.jsonl', rows: 5 }),
      },
    })
    const clicks: string[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download)
    })
    URL.createObjectURL = () => 'blob:x'
    URL.revokeObjectURL = () => undefined
    const notes: string[] = []
    const web = new WorkspaceStore(chain, api, overviewOf(240), {
      hasDialogs: false,
      notify: (t) => notes.push(t),
    })
    web.dispatchView({ type: 'provider', value: 'openai' })
    await web.find.exportView('csv', entryFilter(web.getState().view), 'time_desc')
    expect(reqs).toEqual([{ format: 'csv', sort: 'time_desc', filter: { provider: 'openai' } }])
    expect(clicks).toEqual(['view.csv'])
    expect(notes.at(-1)).toBe('2 rows downloaded as view.csv')
    const desk = new WorkspaceStore(chain, api, overviewOf(240), {
      hasDialogs: true,
      notify: (t) => notes.push(t),
    })
    await desk.find.exportView('jsonl', undefined, 'seq_asc')
    expect(notes.at(-1)).toBe('5 rows saved to /cases/view.jsonl')
    web.dispose()
    desk.dispose()
  })
})
