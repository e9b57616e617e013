// Typed from/to bounds and presets beside the timeline's brush. They read and set the same range
// as the brush (the workspace's view), so either moves the other; presets count back from the
// chain's last timestamp. Also the window's one choice of zone (UTC or local) for every time shown.
import { useEffect, useState, type FormEvent } from 'react'
import type { TimeRange } from '../lib/filter-state'
import { settings, useTimeZone } from '../lib/stores/settings-store'
import { inputTime, presetOf, presetRange, PRESETS, typedRange, type Bounds } from '../lib/time-range'
import { zoneLabel } from '../lib/time-zone'
import { nsToMs } from '../lib/format'
import './view-bar.css'
import './TimeRangeBar.css'

interface Props {
  chain: Bounds
  range: TimeRange | null
  onRange: (r: TimeRange | null) => void
}

export function TimeRangeBar({ chain, range, onRange }: Props) {
  const zone = useTimeZone()
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [error, setError] = useState<string | null>(null)

  // The inputs show the range set anywhere (brush, preset, reset), in the chosen zone.
  useEffect(() => {
    setFrom(range ? inputTime(range.from_ns) : '')
    setTo(range ? inputTime(range.to_ns) : '')
    setError(null)
  }, [range, zone])

  const apply = (e: FormEvent): void => {
    e.preventDefault()
    const r = typedRange(from, to, chain)
    if (!r.ok) {
      setError(r.error)
      return
    }
    setError(null)
    onRange(r.range)
  }
  const active = presetOf(range, chain)
  const zoneNow = zoneLabel(chain.last_ns ? nsToMs(chain.last_ns) : Date.now())

  return (
    <form className="view-bar timerange" onSubmit={apply} data-testid="time-range" aria-label="time range">
      <label className="field inline">
        <span>from</span>
        <input
          className="input mono"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          placeholder="YYYY-MM-DD HH:MM:SS"
          aria-invalid={error !== null}
          data-testid="range-from"
          size={23}
        />
      </label>
      <label className="field inline">
        <span>to</span>
        <input
          className="input mono"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          placeholder="YYYY-MM-DD HH:MM:SS"
          aria-invalid={error !== null}
          data-testid="range-to"
          size={23}
        />
      </label>
      <button type="submit" className="btn small" data-testid="range-apply">
        apply
      </button>
      <span className="presets" role="group" aria-label="presets, counted back from the chain's last entry">
        {PRESETS.map((p) => (
          <button
            key={p.id}
            type="button"
            className={`btn small${active === p.id ? ' active' : ''}`}
            aria-pressed={active === p.id}
            onClick={() => onRange(presetRange(p.id, chain))}
            data-testid={`preset-${p.id}`}
          >
            {p.label}
          </button>
        ))}
      </span>
      <span className="muted small">presets end at the chain’s last entry</span>
      <div className="grow" />
      <label className="field inline" title="every time on screen is shown in this zone">
        <span>times in</span>
        <select
          className="input"
          value={zone}
          onChange={(e) => settings.setTimeZone(e.target.value === 'local' ? 'local' : 'utc')}
          data-testid="time-zone"
        >
          <option value="utc">UTC</option>
          <option value="local">local ({zone === 'local' ? zoneNow : zoneLabel(Date.now(), 'local')})</option>
        </select>
      </label>
      {error ? (
        <div className="error-line small timerange-error" role="alert" data-testid="range-error">
          {error}
        </div>
      ) : null}
    </form>
  )
}
