// Search the chain (trace_id, span_id, span name, model, body text) as an engine job whose rows
// then filter the table and the timeline, and export the rows in view as JSONL, CSV or a reference
// export file (with a key set). State in the workspace's FindStore.
import { useState, type FormEvent } from 'react'
import type { EntryFilter, EntrySort } from '../../../shared/chain-types'
import type { SearchField, ViewExportFormat } from '../../../shared/tools-types'
import { SEARCH_FIELDS, type FindStore } from '../lib/stores/find-store'
import { useStore } from '../lib/stores/store'
import { formatCount } from '../lib/format'
import './view-bar.css'
import './FindBar.css'

interface Props {
  find: FindStore
  filter: EntryFilter | undefined
  sort: EntrySort
  /** Keys are set: a reference export can be signed with the chain's key. */
  hasKey: boolean
}

const FORMATS: { id: ViewExportFormat; label: string }[] = [
  { id: 'jsonl', label: 'JSONL' },
  { id: 'csv', label: 'CSV' },
  { id: 'reference', label: 'reference export' },
]

export function FindBar({ find, filter, sort, hasKey }: Props) {
  const result = useStore(find, (s) => s.result)
  const error = useStore(find, (s) => s.searchError)
  const exporting = useStore(find, (s) => s.exporting)
  const job = useStore(find.searchJob, (s) => s.status)
  const [query, setQuery] = useState('')
  const [fields, setFields] = useState<SearchField[]>(SEARCH_FIELDS.map((f) => f.id))
  const [caseSensitive, setCaseSensitive] = useState(false)

  const submit = (e: FormEvent): void => {
    e.preventDefault()
    void find.search(query, fields, caseSensitive)
  }
  const toggle = (id: SearchField, on: boolean): void =>
    setFields((fs) => (on ? [...fs, id] : fs.filter((f) => f !== id)))
  const pct =
    job && job.progress.total > 0 ? Math.round((100 * job.progress.done) / job.progress.total) : null

  return (
    <div className="view-bar findbar" data-testid="find-bar">
      <form className="row gap-s" onSubmit={submit} role="search" aria-label="search the chain">
        <input
          className="input search-text"
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="search trace_id, span_id, span, model, body…"
          aria-label="search text"
          maxLength={1000}
          data-testid="search-input"
        />
        <button type="submit" className="btn small" disabled={job !== null} data-testid="search-submit">
          Search
        </button>
        {job !== null ? (
          <>
            <span className="muted small" data-testid="search-progress">
              searching{pct !== null ? ` ${pct}%` : '…'}
            </span>
            <button type="button" className="btn small" onClick={find.cancel} data-testid="search-cancel">
              Cancel
            </button>
          </>
        ) : null}
        <span className="row gap-s" role="group" aria-label="fields to search">
          {SEARCH_FIELDS.map((f) => (
            <label key={f.id} className="check">
              <input
                type="checkbox"
                checked={fields.includes(f.id)}
                onChange={(e) => toggle(f.id, e.target.checked)}
                data-testid={`search-field-${f.id}`}
              />
              {f.label}
            </label>
          ))}
          <label className="check" title="match case (off: upper and lower case match alike)">
            <input
              type="checkbox"
              checked={caseSensitive}
              onChange={(e) => setCaseSensitive(e.target.checked)}
              aria-label="match case"
              data-testid="search-case"
            />
            <span className="case-toggle" aria-hidden="true">
              Aa
            </span>
          </label>
        </span>
      </form>
      {result ? (
        <span className="search-result small" data-testid="search-result">
          “{result.query}”: <strong>{formatCount(result.seqs.length)}</strong> matching rows of{' '}
          {formatCount(result.scanned)}
          <button type="button" className="btn small" onClick={find.clear} data-testid="search-clear">
            clear search
          </button>
        </span>
      ) : null}
      {error ? (
        <span className="error-line small" role="alert" data-testid="search-error">
          {error}
        </span>
      ) : null}
      <div className="grow" />
      <span className="row gap-s" role="group" aria-label="export the rows in view">
        <span className="muted small">export rows in view:</span>
        {FORMATS.map((f) => (
          <button
            key={f.id}
            type="button"
            className="btn small"
            disabled={exporting !== null || (f.id === 'reference' && !hasKey)}
            title={
              f.id === 'reference' && !hasKey
                ? 'set the chain’s key first: a reference export is signed with it'
                : `the rows the table shows, as ${f.label}`
            }
            onClick={() => void find.exportView(f.id, filter, sort)}
            data-testid={`export-${f.id}`}
          >
            {f.label}
          </button>
        ))}
      </span>
    </div>
  )
}
