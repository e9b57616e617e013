// Provider / model / flagged filters and the selected time range, shared by the timeline, the
// charts and the table.
import type { ChainOverview } from '../../../shared/chain-types'
import type { ViewAction, ViewState } from '../lib/filter-state'
import { shortTime } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'
import './FilterBar.css'

interface Props {
  overview: ChainOverview
  view: ViewState
  dispatch: (a: ViewAction) => void
  flaggedCount: number | null
  rangeLabel: { from: string; to: string } | null
}

export function FilterBar({ overview, view, dispatch, flaggedCount, rangeLabel }: Props) {
  useTimeZone() // drawn again when the zone times are shown in changes
  return (
    <div className="filterbar" data-testid="filterbar">
      <label className="field inline">
        <span>provider</span>
        <select
          className="input"
          value={view.provider ?? ''}
          onChange={(e) => dispatch({ type: 'provider', value: e.target.value || null })}
          data-testid="filter-provider"
        >
          <option value="">all</option>
          {overview.providers.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} ({p.count})
            </option>
          ))}
        </select>
      </label>
      <label className="field inline">
        <span>model</span>
        <select
          className="input"
          value={view.model ?? ''}
          onChange={(e) => dispatch({ type: 'model', value: e.target.value || null })}
          data-testid="filter-model"
        >
          <option value="">all</option>
          {overview.models.map((m) => (
            <option key={m.name} value={m.name}>
              {m.name} ({m.count})
            </option>
          ))}
        </select>
      </label>
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
            {f === 'spanName' ? 'span' : 'status'} = {view[f]}
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
