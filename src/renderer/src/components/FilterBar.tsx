// Provider / model / flagged filters and the selected time range, shared by the timeline, the
// charts and the table.
import { useMemo } from 'react'
import type { ChainOverview, NamePage } from '../../../shared/chain-types'
import type { ViewAction, ViewState } from '../lib/filter-state'
import { shortTime, shownName } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'
import { NameFilter } from './NameFilter'
import './FilterBar.css'

interface Props {
  overview: ChainOverview
  view: ViewState
  dispatch: (a: ViewAction) => void
  flaggedCount: number | null
  rangeLabel: { from: string; to: string } | null
  /** The engine's search of every provider or model (listNames): the overview lists the most frequent. */
  searchNames?: (field: 'provider' | 'model', query: string) => Promise<NamePage>
  /** One name whole (listNames with `whole`): the overview and the pages send long names clipped. */
  wholeNames?: (field: 'provider' | 'model', query: string, offset: number) => Promise<NamePage>
}

export function FilterBar({
  overview,
  view,
  dispatch,
  flaggedCount,
  rangeLabel,
  searchNames,
  wholeNames,
}: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const search = useMemo(
    () =>
      searchNames
        ? {
            provider: (q: string) => searchNames('provider', q),
            model: (q: string) => searchNames('model', q),
          }
        : null,
    [searchNames],
  )
  const whole = useMemo(
    () =>
      wholeNames
        ? {
            provider: (q: string, at: number) => wholeNames('provider', q, at),
            model: (q: string, at: number) => wholeNames('model', q, at),
          }
        : null,
    [wholeNames],
  )
  return (
    <div className="filterbar" data-testid="filterbar">
      <NameFilter
        label="provider"
        plural="providers"
        names={overview.providers}
        left={overview.providers_left ?? null}
        {...(search ? { search: search.provider } : {})}
        {...(whole ? { whole: whole.provider } : {})}
        value={view.provider}
        onChange={(value) => dispatch({ type: 'provider', value })}
        testId="filter-provider"
      />
      <NameFilter
        label="model"
        plural="models"
        names={overview.models}
        left={overview.models_left ?? null}
        {...(search ? { search: search.model } : {})}
        {...(whole ? { whole: whole.model } : {})}
        value={view.model}
        onChange={(value) => dispatch({ type: 'model', value })}
        testId="filter-model"
      />
      <label className="check" title="only rows inside a verify finding or an integrity anomaly">
        <input
          type="checkbox"
          checked={view.flaggedOnly}
          onChange={(e) => dispatch({ type: 'flagged', value: e.target.checked })}
          data-testid="filter-flagged"
        />{' '}
        flagged only
        {flaggedCount !== null ? <span className="pill warn">{flaggedCount}</span> : null}
      </label>
      {(['spanName', 'status'] as const).map((f) =>
        view[f] !== null ? (
          <span key={f} className="filter-chip pill" data-testid={`filter-chip-${f}`}>
            {f === 'spanName' ? 'span' : 'status'} = {shownName(view[f])}
            <button
              type="button"
              className="btn small"
              aria-label={`remove the ${f === 'spanName' ? 'span' : 'status'} filter`}
              onClick={() => dispatch({ type: f, value: null })}
            >
              ✕
            </button>
          </span>
        ) : null,
      )}
      <div className="grow" />
      {view.range && rangeLabel ? (
        <span className="range-label" data-testid="range-label">
          {shortTime(rangeLabel.from)} → {shortTime(rangeLabel.to)}
          <button
            type="button"
            className="btn small"
            onClick={() => dispatch({ type: 'range', value: null })}
            data-testid="range-reset"
            title="whole chain (Esc)"
          >
            reset zoom
          </button>
        </span>
      ) : (
        <span className="muted small">drag the timeline’s brush to zoom</span>
      )}
      {view.provider || view.model || view.flaggedOnly || view.spanName !== null || view.status !== null ? (
        <button type="button" className="btn small" onClick={() => dispatch({ type: 'reset' })}>
          clear filters
        </button>
      ) : null}
    </div>
  )
}
