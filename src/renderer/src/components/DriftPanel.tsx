// F12 payload drift (reference §8) beside the integrity monitor: for each provider/model group,
// each dimension over time with its anomalies marked, and the list of anomalies (a click selects
// the row). The controls are the reference's: z threshold and window (values per baseline), plus
// the dimension; the rows are the view's (provider, model, typed time range).
import { useState, type FormEvent } from 'react'
import type { DriftDimension, DriftSeries, DriftSeriesRequest } from '../../../shared/drift-types'
import type { JobStatus } from '../../../shared/job-types'
import {
  anomalyRows,
  anyTruncated,
  DIMENSION_LABELS,
  DRIFT_DIMENSIONS,
  DRIFT_WINDOW_MAX,
  DRIFT_WINDOW_MIN,
  formatDriftValue,
  formatScore,
  groupKey,
  groupLabel,
  METHOD_LABELS,
  shownGroups,
} from '../lib/drift'
import { counted, formatCount, isoOfNs, nsToMs, shortTime, shownName } from '../lib/format'
import type { DriftControls } from '../lib/stores/drift-store'
import { useTimeZone } from '../lib/stores/settings-store'
import { DriftChart } from './DriftChart'
import { JobProgress } from './JobProgress'
import './drift.css'

interface Props {
  controls: DriftControls
  series: DriftSeries | null
  request: DriftSeriesRequest | null
  /** The view's filters changed since the series was made. */
  stale: boolean
  group: string | null
  status: JobStatus | null
  error: string | null
  /** What the chain's verdict says of the payloads read (lib/drift.ts driftRowsNote); null: all hold. */
  rowsNote: string | null
  onRun: (c: DriftControls) => void
  onCancel: () => void
  onGroup: (key: string | null) => void
  onSelectSeq: (seq: number) => void
}

/** Anomalies listed at most (the charts and the counts have them all). */
export const MAX_LISTED = 500

function scopeText(r: DriftSeriesRequest | null): string {
  if (!r) return ''
  const parts: string[] = []
  // The names are the chain's, whole (megabytes if its writer chose): shown clipped.
  if (r.provider) parts.push(`provider ${shownName(r.provider)}`)
  if (r.model) parts.push(`model ${shownName(r.model)}`)
  if (r.from_ns && r.to_ns) parts.push(`${shortTime(isoOfNs(r.from_ns))} – ${shortTime(isoOfNs(r.to_ns))}`)
  return parts.length > 0 ? parts.join(' · ') : 'every row of the chain'
}

export function DriftPanel(props: Props) {
  const { controls, series, request, stale, group, status, error } = props
  useTimeZone() // times drawn again when the zone changes
  const [zText, setZText] = useState(String(controls.z_threshold))
  const [windowText, setWindowText] = useState(String(controls.window))
  const [dimension, setDimension] = useState<DriftDimension | ''>(controls.dimension ?? '')
  const z = Number(zText)
  const zValid = zText.trim() !== '' && Number.isFinite(z) && z >= 0 && z <= 100
  const w = Number(windowText)
  const windowValid = /^\d+$/.test(windowText.trim()) && w >= DRIFT_WINDOW_MIN && w <= DRIFT_WINDOW_MAX
  const running = status !== null

  const submit = (e: FormEvent): void => {
    e.preventDefault()
    if (!zValid || !windowValid || running) return
    props.onRun({ z_threshold: z, window: w, dimension: dimension === '' ? null : dimension })
  }

  const groups = shownGroups(series, group)
  const rows = anomalyRows(groups)
  const truncated = anyTruncated(groups)
  const bucketMs = series ? nsToMs(series.bucket_ns) : 0
  const groupCount = series ? series.groups.length + (series.omitted?.groups ?? 0) : 0

  return (
    <div className="drift" data-testid="drift-panel">
      <form className="drift-form" onSubmit={submit} aria-label="payload drift options">
        <div className="row gap wrap">
          <label className="field">
            <span>z threshold</span>
            <input
              className={`input num${zValid ? '' : ' invalid'}`}
              type="number"
              min={0}
              max={100}
              step="any"
              value={zText}
              onChange={(e) => setZText(e.target.value)}
              data-testid="drift-z"
            />
          </label>
          <label className="field">
            <span>window</span>
            <input
              className={`input num${windowValid ? '' : ' invalid'}`}
              type="number"
              min={DRIFT_WINDOW_MIN}
              max={DRIFT_WINDOW_MAX}
              value={windowText}
              onChange={(e) => setWindowText(e.target.value)}
              data-testid="drift-window"
              aria-describedby="drift-window-help"
            />
          </label>
          <label className="field">
            <span>dimension</span>
            <select
              className="input"
              value={dimension}
              onChange={(e) => setDimension(e.target.value as DriftDimension | '')}
              data-testid="drift-dimension"
            >
              <option value="">all six</option>
              {DRIFT_DIMENSIONS.map((d) => (
                <option key={d} value={d}>
                  {DIMENSION_LABELS[d]}
                </option>
              ))}
            </select>
          </label>
          <button
            type="submit"
            className="btn primary"
            disabled={running || !zValid || !windowValid}
            data-testid="drift-run"
          >
            Analyse drift
          </button>
        </div>
        <p className="muted small" id="drift-window-help">
          Each block of {windowValid ? w : 'window'} values of a provider/model is judged against the block
          before it; an anomaly is a value past the z threshold and outside 1.5 × IQR (reference §8).
        </p>
      </form>
      {status ? <JobProgress status={status} onCancel={props.onCancel} testId="drift-progress" /> : null}
      {error ? (
        <p className="error-line" role="alert" data-testid="drift-error">
          {error}
        </p>
      ) : null}
      {!series && !running ? (
        <p className="muted small" data-testid="drift-not-run">
          Not analysed yet: Analyse drift reads every payload of the rows in view.
        </p>
      ) : null}
      {series ? (
        <div className="drift-result" data-testid="drift-result">
          <p className="small" data-testid="drift-summary">
            <b data-testid="drift-count">{formatCount(series.anomaly_count)}</b> anomal
            {series.anomaly_count === 1 ? 'y' : 'ies'} in {formatCount(groupCount)} provider/model group
            {groupCount === 1 ? '' : 's'} · window {series.window} · z ≥ {series.z_threshold}
          </p>
          {series.omitted ? (
            <p className="warn-text small" data-testid="drift-omitted">
              {formatCount(series.omitted.groups)} more provider/model group
              {series.omitted.groups === 1 ? ' is' : 's are'} not charted (
              {counted(series.omitted.rows, 'row')}, {formatCount(series.omitted.anomalies)} anomal
              {series.omitted.anomalies === 1 ? 'y' : 'ies'}, counted above): only the{' '}
              {formatCount(series.groups.length)} with the most rows are. Choose a provider or model in the
              view to chart the others.
            </p>
          ) : null}
          {series.time_note ? (
            <p className="warn-text small" data-testid="drift-time-note">
              {series.time_note}
            </p>
          ) : null}
          <p className="muted small" data-testid="drift-scope">
            Rows: {scopeText(request)}
            {stale ? ' — the view has changed since: Analyse drift again to follow it' : ''}
          </p>
          {props.rowsNote ? (
            <p className="warn-text small" data-testid="drift-rows-note">
              {props.rowsNote}
            </p>
          ) : null}
          {truncated ? (
            <p className="warn-text small" data-testid="drift-truncated">
              Anomalies truncated: more were found than are listed (the counts have them all).
            </p>
          ) : null}
          {series.groups.length === 0 ? (
            <p className="muted small" data-testid="drift-no-groups">
              No provider/model group: no row in view has a readable payload.
            </p>
          ) : (
            <>
              <label className="field">
                <span>provider / model</span>
                <select
                  className="input"
                  value={group ?? ''}
                  onChange={(e) => props.onGroup(e.target.value === '' ? null : e.target.value)}
                  data-testid="drift-group-filter"
                >
                  <option value="">all groups ({series.groups.length})</option>
                  {series.groups.map((g) => (
                    <option key={groupKey(g)} value={groupKey(g)}>
                      {groupLabel(g)} ({counted(g.rows, 'row')})
                    </option>
                  ))}
                </select>
              </label>
              {groups.map((g) => (
                <div
                  key={groupKey(g)}
                  className="drift-group"
                  data-testid="drift-group"
                  data-provider={g.provider}
                  data-model={g.model ?? ''}
                >
                  <h3 className="drift-group-head">
                    {groupLabel(g)} <span className="muted small">{counted(g.rows, 'row')}</span>
                  </h3>
                  {g.dimensions.map((d) => (
                    <DriftChart
                      key={d.dimension}
                      dim={d}
                      window={series.window}
                      bucketMs={bucketMs}
                      onSelectSeq={props.onSelectSeq}
                    />
                  ))}
                </div>
              ))}
              <h3 className="drift-list-head" id="drift-anomalies-head">
                Anomalies ({formatCount(rows.length)})
              </h3>
              {rows.length === 0 ? (
                <p className="muted small" data-testid="drift-no-anomalies">
                  No anomaly in these rows at z ≥ {series.z_threshold}.
                </p>
              ) : (
                <ol
                  className="drift-anomalies"
                  aria-labelledby="drift-anomalies-head"
                  data-testid="drift-anomalies"
                >
                  {rows.slice(0, MAX_LISTED).map((a) => (
                    <li key={`${a.group}|${a.seq}|${a.dimension}`}>
                      <button
                        type="button"
                        className="drift-anomaly"
                        onClick={() => props.onSelectSeq(a.seq)}
                        data-testid="drift-anomaly"
                        data-seq={a.seq}
                        data-dimension={a.dimension}
                        data-value={a.value}
                        data-severity={a.severity}
                      >
                        <span className="drift-anomaly-head">
                          <span className={`pill ${a.severity === 'anomaly' ? 'bad' : 'warn'}`}>
                            {a.severity === 'anomaly' ? '▲ anomaly' : '◇ warning'}
                          </span>{' '}
                          seq {a.seq} · {DIMENSION_LABELS[a.dimension]}
                        </span>
                        <span className="drift-anomaly-time mono">
                          {a.timestamp_ns === '' ? 'no time' : shortTime(isoOfNs(a.timestamp_ns))}
                          {a.time_unsealed ? ' (unsealed timestamp_ns)' : ''}
                        </span>
                        <span className="drift-anomaly-body">
                          value {formatDriftValue(a.value, a.dimension)} · baseline mean{' '}
                          {formatDriftValue(a.baseline_mean, a.dimension)} · z {formatScore(a.z_score)} · IQR
                          distance {formatScore(a.iqr_distance)} · {METHOD_LABELS[a.method_triggered]}
                        </span>
                        {series.groups.length > 1 && group === null ? (
                          <span className="muted">{a.group}</span>
                        ) : null}
                      </button>
                    </li>
                  ))}
                  {rows.length > MAX_LISTED ? (
                    <li className="muted small">… {formatCount(rows.length - MAX_LISTED)} more not listed</li>
                  ) : null}
                </ol>
              )}
            </>
          )}
        </div>
      ) : null}
    </div>
  )
}
