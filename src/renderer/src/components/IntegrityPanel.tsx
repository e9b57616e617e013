// The integrity monitor's six detectors over the last N rows (or the whole chain), thresholds adjustable.
import { useState, type FormEvent, type ReactNode } from 'react'
import type { IntegrityOptions, IntegrityRun, IntegrityThresholds } from '../../../shared/integrity-types'
import type { JobStatus } from '../../../shared/job-types'
import { shiftItems } from '../../../shared/provider-shifts'
import { counted, formatCount } from '../lib/format'
import {
  clampWindow,
  DEFAULT_THRESHOLDS,
  integrityHeadline,
  rateLines,
  shiftLines,
  THRESHOLD_LABELS,
  WINDOW_MAX,
  WINDOW_MIN,
} from '../lib/integrity'
import { JobProgress } from './JobProgress'
import './IntegrityPanel.css'

interface Props {
  run: IntegrityRun | null
  options: IntegrityOptions
  busy: boolean
  status: JobStatus | null
  error: string | null
  onRun: (opts: IntegrityOptions) => void
  onCancel: () => void
  onSelectSeq: (seq: number) => void
  /** Rows in the chain, to say what part of it the run covers. */
  totalRows?: number
  /** The key set changed since this run was made: its rotation detector used other keys. */
  stale?: boolean
}

const KEYS = Object.keys(DEFAULT_THRESHOLDS) as (keyof IntegrityThresholds)[]

function Category({
  name,
  ok,
  summary,
  children,
  testId,
}: {
  name: string
  ok: boolean
  summary: string
  children?: ReactNode
  testId: string
}) {
  return (
    <div className={`category ${ok ? 'ok' : 'warn'}`} data-testid={testId} data-ok={ok}>
      <div className="category-head">
        <span className={`dot ${ok ? 'ok' : 'warn'}`} aria-hidden />
        <span className="category-name">{name}</span>
        <span className="category-summary">{summary}</span>
      </div>
      {children ? <div className="category-body">{children}</div> : null}
    </div>
  )
}

function SeqButton({ seq, onSelectSeq }: { seq: number; onSelectSeq: (s: number) => void }) {
  return (
    <button type="button" className="link" onClick={() => onSelectSeq(seq)}>
      seq {seq}
    </button>
  )
}

/** What a run covers, said beside its result (issue 35: a window's "no gaps" is not the chain's). */
/**
 * Lines listed per category: a whole-chain run of a chain with a gap at every other seq (or a
 * provider per row) has as many lines as rows, and drawing them all froze the panel. The rest are
 * counted on the last line; the category's summary has the whole count.
 */
const LISTED = 200

function More({ total }: { total: number }) {
  return total > LISTED ? (
    <li className="muted" data-testid="integrity-more">
      … +{formatCount(total - LISTED)} more (the report has them all)
    </li>
  ) : null
}

export function coverageText(run: IntegrityRun, totalRows: number | undefined): string {
  const r = run.report
  const seqs = r.first_seq === null ? 'no rows' : `seq ${r.first_seq}–${r.last_seq}`
  if (run.mode === 'all') return `covers all ${counted(r.window, 'row')} (${seqs})`
  const of = totalRows !== undefined ? ` of ${formatCount(totalRows)}` : ''
  if (totalRows !== undefined && r.window >= totalRows)
    return `covers all ${counted(r.window, 'row')} (${seqs}): the window holds the whole chain`
  return `covers only the last ${counted(r.window, 'row')}${of} (${seqs}); earlier rows are not analysed: tick “whole chain” for all`
}

export function IntegrityPanel({
  run,
  options,
  busy,
  status,
  error,
  onRun,
  onCancel,
  onSelectSeq,
  totalRows,
  stale = false,
}: Props) {
  const [windowText, setWindowText] = useState(String(options.window ?? 100))
  const [all, setAll] = useState(options.all === true)
  const [th, setTh] = useState<Record<keyof IntegrityThresholds, string>>(() => {
    const init = {} as Record<keyof IntegrityThresholds, string>
    for (const k of KEYS) init[k] = options.thresholds?.[k] !== undefined ? String(options.thresholds[k]) : ''
    return init
  })
  const applied = run?.thresholds ?? DEFAULT_THRESHOLDS
  const winNum = Number(windowText)
  const windowValid = /^\d+$/.test(windowText.trim()) && winNum >= WINDOW_MIN && winNum <= WINDOW_MAX

  const submit = (e: FormEvent): void => {
    e.preventDefault()
    const opts: IntegrityOptions = {}
    if (all) opts.all = true
    else opts.window = clampWindow(winNum)
    const thresholds: Partial<IntegrityThresholds> = {}
    for (const k of KEYS) {
      const v = th[k].trim()
      if (v !== '' && Number.isFinite(Number(v)) && Number(v) >= 0) thresholds[k] = Number(v)
    }
    if (Object.keys(thresholds).length > 0) opts.thresholds = thresholds
    onRun(opts)
  }

  const r = run?.report
  const ts = r?.timestamp_anomalies ?? []
  const tsParts = (['backward', 'large_gap', 'burst'] as const)
    .map((t) => [t, ts.filter((a) => a.type === t).length] as const)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${n} ${t === 'large_gap' ? 'large-gap' : t}`)

  return (
    <div className="integrity" data-testid="integrity-panel">
      <form className="integrity-form" onSubmit={submit}>
        <div className="row gap wrap">
          <label className="field">
            <span>window</span>
            <input
              className={`input num${windowValid || all ? '' : ' invalid'}`}
              type="number"
              min={WINDOW_MIN}
              max={WINDOW_MAX}
              value={windowText}
              disabled={all}
              onChange={(e) => setWindowText(e.target.value)}
              data-testid="integrity-window"
              aria-label="integrity window (last N rows, 2..10000)"
            />
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={all}
              onChange={(e) => setAll(e.target.checked)}
              data-testid="integrity-all"
            />{' '}
            whole chain
          </label>
          <button
            type="submit"
            className="btn primary"
            disabled={busy || (!all && !windowValid)}
            data-testid="integrity-run"
          >
            Analyse
          </button>
        </div>
        <details className="thresholds">
          <summary>thresholds</summary>
          <div className="threshold-grid">
            {KEYS.map((k) => (
              <label key={k} className="field">
                <span>{THRESHOLD_LABELS[k]}</span>
                <input
                  className="input num"
                  type="number"
                  min={0}
                  step="any"
                  placeholder={String(applied[k])}
                  value={th[k]}
                  onChange={(e) => setTh((t) => ({ ...t, [k]: e.target.value }))}
                  data-testid={`threshold-${k}`}
                />
              </label>
            ))}
          </div>
        </details>
      </form>
      {status ? <JobProgress status={status} onCancel={onCancel} testId="integrity-progress" /> : null}
      {error ? (
        <p className="error-line" role="alert" data-testid="integrity-error">
          {error}
        </p>
      ) : null}
      {run && r ? (
        <div className="integrity-report" data-testid="integrity-report" data-clean={r.clean}>
          <div className={`integrity-head ${r.clean ? 'ok' : 'warn'}`} data-testid="integrity-headline">
            {integrityHeadline(r)}
          </div>
          <p
            className={`coverage small${run.mode === 'all' ? '' : ' partial'}`}
            data-testid="integrity-coverage"
            data-mode={run.mode}
          >
            {coverageText(run, totalRows)} · {formatCount(r.anomaly_count)} anomal
            {r.anomaly_count === 1 ? 'y' : 'ies'}
          </p>
          {stale ? (
            <p className="stale-line small" role="status" data-testid="integrity-stale">
              Out of date: the keys changed since this run (its rotation check used the old ones).{' '}
              <button type="button" className="link" onClick={() => onRun(options)} disabled={busy}>
                Analyse again
              </button>
            </p>
          ) : null}
          <Category
            name="Sequence"
            ok={r.sequence_gaps.length === 0}
            summary={
              r.sequence_gaps.length === 0
                ? `no gaps${run.mode === 'all' || r.first_seq === null ? '' : ` in seq ${r.first_seq}–${r.last_seq}`}`
                : `${r.sequence_gaps.length} gap(s)`
            }
            testId="cat-sequence"
          >
            {r.sequence_gaps.length > 0 ? (
              <ul data-testid="sequence-gap-lines">
                {r.sequence_gaps.slice(0, LISTED).map((g, i) => (
                  <li key={i}>
                    <SeqButton seq={g.after_seq} onSelectSeq={onSelectSeq} /> →{' '}
                    <SeqButton seq={g.before_seq} onSelectSeq={onSelectSeq} /> ({formatCount(g.missing_count)}{' '}
                    missing)
                  </li>
                ))}
                <More total={r.sequence_gaps.length} />
              </ul>
            ) : null}
          </Category>
          <Category
            name="Timestamps"
            ok={ts.length === 0}
            summary={ts.length === 0 ? 'no anomalies' : tsParts.join(', ')}
            testId="cat-timestamps"
          >
            {ts.length > 0 ? (
              <ul>
                {ts.slice(0, LISTED).map((a, i) => (
                  <li key={i}>
                    {a.seq > 0 ? <SeqButton seq={a.seq} onSelectSeq={onSelectSeq} /> : null}{' '}
                    <span className="pill warn">{a.type}</span> {a.detail}
                  </li>
                ))}
                <More total={ts.length} />
              </ul>
            ) : null}
          </Category>
          <Category
            name="Hashes"
            ok={r.hash_anomalies.length === 0}
            summary={
              r.hash_anomalies.length === 0 ? 'no duplicates' : `${r.hash_anomalies.length} duplicate(s)`
            }
            testId="cat-hashes"
          >
            {r.hash_anomalies.length > 0 ? (
              <ul data-testid="hash-lines">
                {r.hash_anomalies.slice(0, LISTED).map((h, i) => (
                  <li key={i}>
                    <SeqButton seq={h.seq} onSelectSeq={onSelectSeq} /> {h.detail}
                  </li>
                ))}
                <More total={r.hash_anomalies.length} />
              </ul>
            ) : null}
          </Category>
          <Category
            name="Provider distribution"
            ok={r.provider_shift === null}
            summary={r.provider_shift === null ? 'stable' : 'SHIFT detected'}
            testId="cat-provider"
          >
            {r.provider_shift ? (
              <ul data-testid="provider-shift-lines">
                {shiftLines(r)
                  .slice(0, LISTED)
                  .map((l) => (
                    <li key={l}>{l}</li>
                  ))}
                <More total={shiftItems(r.provider_shift).length} />
              </ul>
            ) : null}
          </Category>
          <Category
            name="Rate"
            ok={r.rate_anomalies.length === 0}
            summary={r.rate_anomalies.length === 0 ? 'stable' : rateLines(r).join('; ')}
            testId="cat-rate"
          />
          <Category
            name="Rotation boundaries"
            ok={r.rotation_boundaries.length === 0}
            summary={
              r.rotation_boundaries.length === 0 ? 'none' : `${r.rotation_boundaries.length} boundary(ies)`
            }
            testId="cat-rotation"
          >
            {r.rotation_boundaries.length > 0 ? (
              <ul data-testid="rotation-lines">
                {r.rotation_boundaries.slice(0, LISTED).map((b, i) => (
                  <li key={i}>
                    <SeqButton seq={b.seq} onSelectSeq={onSelectSeq} /> {b.detail}
                  </li>
                ))}
                <More total={r.rotation_boundaries.length} />
              </ul>
            ) : null}
            <p className="muted small" data-testid="rotation-note">
              {run.rotation_note}
            </p>
          </Category>
          <div className="muted small">
            applied: burst &gt; {run.thresholds.burst_threshold}/s · gap &gt; {run.thresholds.large_gap_sec}s
            · shift &gt; {run.thresholds.provider_shift_pct}pp · rate ±{run.thresholds.rate_tol} · min split{' '}
            {run.thresholds.min_split_size}
          </div>
        </div>
      ) : null}
    </div>
  )
}
