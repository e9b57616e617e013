// Search and export of what is filtered, for one chain (issue 26): the search runs in the engine as
// a streamed, cancellable job over trace_id, span_id, span name, model and the body text; its
// search_id then filters the table and the timeline like any other filter. Export writes the rows
// in view (the same filter and sort) as JSONL, CSV or a reference export file (with a key set).
import type { EntryFilter, EntrySort } from '../../../../shared/chain-types'
import type { ApiClient } from '../../../../shared/contract'
import type { SearchField, SearchResult, ViewExportFormat } from '../../../../shared/tools-types'
import { jobEndSentence } from '../announce-text'
import { downloadText } from '../download'
import type { ViewAction } from '../filter-state'
import { counted, errorMessage } from '../format'
import { announcer } from './announcer'
import { JobRunner } from './job-runner'
import { Store } from './store'

export const SEARCH_FIELDS: { id: SearchField; label: string }[] = [
  { id: 'trace_id', label: 'trace_id' },
  { id: 'span_id', label: 'span_id' },
  { id: 'span_name', label: 'span name' },
  { id: 'model', label: 'model' },
  { id: 'body', label: 'body text' },
]

export interface FindState {
  /** The search whose rows filter the view (null: none). */
  result: SearchResult | null
  searchError: string | null
  exporting: ViewExportFormat | null
}

export interface FindEnv {
  hasDialogs: boolean
  notify: (text: string, kind?: 'info' | 'error') => void
  dispatchView: (a: ViewAction) => void
}

export function searchSentence(r: SearchResult): string {
  const n = r.seqs.length
  return `Search finished: ${n} matching row${n === 1 ? '' : 's'} of ${r.scanned} read.`
}

export class FindStore extends Store<FindState> {
  readonly searchJob: JobRunner<SearchResult>

  constructor(
    private readonly api: ApiClient,
    private readonly env: FindEnv,
  ) {
    super({ result: null, searchError: null, exporting: null })
    this.searchJob = new JobRunner(api)
  }

  dispose(): void {
    this.searchJob.dispose()
  }

  /** Search the whole chain; when it finishes, its rows become the view's search filter. */
  readonly search = async (query: string, fields: SearchField[], caseSensitive: boolean): Promise<void> => {
    const q = query.trim()
    if (q === '') {
      this.clear()
      return
    }
    if (fields.length === 0) {
      this.update({ searchError: 'choose at least one field to search' })
      return
    }
    if (this.searchJob.running) return
    this.update({ searchError: null })
    const r = await this.searchJob.run(() =>
      this.api.startSearch({ query: q, fields, case_sensitive: caseSensitive }),
    )
    const error = this.searchJob.getState().error
    if (r) {
      this.update({ result: r })
      this.env.dispatchView({ type: 'search', value: r.search_id })
      announcer.announce(searchSentence(r))
    } else if (error) {
      this.update({ searchError: error === 'cancelled' ? null : error })
      announcer.announce(jobEndSentence('Search', error))
    }
  }

  readonly cancel = (): void => this.searchJob.cancel()

  readonly clear = (): void => {
    this.update({ result: null, searchError: null })
    this.env.dispatchView({ type: 'search', value: null })
  }

  /** The rows in view (filter and sort as the table has them) as a file. */
  readonly exportView = async (
    format: ViewExportFormat,
    filter: EntryFilter | undefined,
    sort: EntrySort,
  ): Promise<void> => {
    const req = { format, sort, ...(filter ? { filter } : {}) }
    this.update({ exporting: format })
    try {
      if (this.env.hasDialogs) {
        const { path, rows } = await this.api.saveViewExport(req)
        this.env.notify(path ? `${counted(rows, 'row')} saved to ${path}` : 'Export cancelled')
        if (path) announcer.announce(`Export finished: ${counted(rows, 'row')} saved.`)
      } else {
        const out = await this.api.exportView(req)
        downloadText(out.file_name, out.content, out.media_type)
        this.env.notify(`${counted(out.rows, 'row')} downloaded as ${out.file_name}`)
        announcer.announce(`Export finished: ${counted(out.rows, 'row')} downloaded as ${out.file_name}.`)
      }
    } catch (e) {
      this.env.notify(`Export failed: ${errorMessage(e)}`, 'error')
    } finally {
      this.update({ exporting: null })
    }
  }
}
