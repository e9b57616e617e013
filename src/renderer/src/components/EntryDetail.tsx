// One entry: its hashes, its own verify status (checkRow), replay attributes, links to its
// neighbours, and the canonical body pretty-printed — as text, never as HTML.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { EntryDetail as Entry } from '../../../shared/chain-types'
import type { RowCheck } from '../../../shared/verify-types'
import { useApi } from '../app/api-context'
import { errorMessage, formatCount, nsToMs, shortTime } from '../lib/format'
import { zoneLabel } from '../lib/time-zone'
import { Hash } from './Hash'
import { useTimeZone } from '../lib/stores/settings-store'
import { keyLabel } from '../lib/key-notes'
import './EntryDetail.css'

interface Props {
  seq: number
  /** Bump to re-run checkRow (keys changed, verify finished). */
  checkVersion: number
  onSelectSeq: (seq: number, ns: string | null) => void
  flaggedBy: string | null
  onLoaded?: (e: Entry) => void
  children?: ReactNode
  /** Shown after the body, given the loaded entry (e.g. recovered earlier versions beside it). */
  renderAfter?: (e: Entry) => ReactNode
}

function Status({ ok, label, testId }: { ok: boolean | null; label: string; testId: string }) {
  const cls = ok === null ? 'unknown' : ok ? 'ok' : 'bad'
  return (
    <span className={`pill ${cls}`} data-testid={testId} data-ok={ok === null ? 'null' : String(ok)}>
      {ok === null ? '?' : ok ? '✓' : '✗'} {label}
    </span>
  )
}

function value(v: unknown): string {
  if (typeof v === 'string') return v
  return JSON.stringify(v)
}

export function EntryDetail({
  seq,
  checkVersion,
  onSelectSeq,
  flaggedBy,
  onLoaded,
  children,
  renderAfter,
}: Props) {
  const zone = useTimeZone() // drawn again when the zone times are shown in changes
  const api = useApi()
  const [entry, setEntry] = useState<Entry | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [check, setCheck] = useState<RowCheck | null>(null)
  const [checkError, setCheckError] = useState<string | null>(null)
  const loadedRef = useRef(onLoaded)
  useEffect(() => {
    loadedRef.current = onLoaded
  })

  useEffect(() => {
    let live = true
    setError(null)
    api
      .getEntry({ seq })
      .then((e) => {
        if (!live) return
        setEntry(e)
        loadedRef.current?.(e)
      })
      .catch((e: unknown) => {
        if (live) {
          setEntry(null)
          setError(errorMessage(e))
        }
      })
    return () => {
      live = false
    }
  }, [api, seq])

  useEffect(() => {
    let live = true
    setCheckError(null)
    api
      .checkRow({ seq })
      .then((c) => {
        if (live) setCheck(c)
      })
      .catch((e: unknown) => {
        if (live) {
          setCheck(null)
          setCheckError(errorMessage(e))
        }
      })
    return () => {
      live = false
    }
  }, [api, seq, checkVersion])

  if (error) {
    return (
      <div className="detail" data-testid="entry-detail">
        <p className="error-line">{error}</p>
      </div>
    )
  }
  if (!entry || entry.seq !== seq)
    return (
      <div className="detail muted" data-testid="entry-detail-loading">
        loading seq {seq}…
      </div>
    )
  const c = check && check.seq === seq ? check : null
  const bodyText = entry.body_pretty ?? entry.body_text ?? ''
  return (
    <div className="detail" data-testid="entry-detail" data-seq={entry.seq}>
      <div className="detail-head">
        <button
          type="button"
          className="btn small"
          disabled={entry.prev_seq === null}
          onClick={() => entry.prev_seq !== null && onSelectSeq(entry.prev_seq, null)}
          data-testid="detail-prev"
          title="previous seq ([)"
        >
          ← {entry.prev_seq ?? ''}
        </button>
        <h3>
          seq <span data-testid="detail-seq">{entry.seq}</span>
        </h3>
        <button
          type="button"
          className="btn small"
          disabled={entry.next_seq === null}
          onClick={() => entry.next_seq !== null && onSelectSeq(entry.next_seq, null)}
          data-testid="detail-next"
          title="next seq (])"
        >
          {entry.next_seq ?? ''} →
        </button>
        <div className="grow" />
        {flaggedBy ? (
          <span className="pill warn detail-flag" data-testid="detail-flag">
            ⚑ {flaggedBy}
          </span>
        ) : null}
      </div>
      <div className="row gap wrap status-row" data-testid="row-check">
        {c ? (
          <>
            <Status ok={c.body_hash_ok} label="body hash" testId="check-body" />
            <Status ok={c.link_ok} label="link" testId="check-link" />
            <Status
              ok={c.hmac_ok}
              label={
                c.hmac_ok === null
                  ? 'HMAC (no key)'
                  : c.key_index !== null
                    ? `HMAC ${keyLabel(c.key_index)}`
                    : 'HMAC'
              }
              testId="check-hmac"
            />
            {c.columns_ok !== null ? (
              <Status
                ok={c.columns_ok}
                label={c.columns_ok ? 'columns' : `columns: ${c.column_mismatches.join(', ')}`}
                testId="check-columns"
              />
            ) : null}
          </>
        ) : checkError ? (
          <span className="error-line small">{checkError}</span>
        ) : (
          <span className="muted small">checking…</span>
        )}
      </div>
      <dl className="kv">
        <dt>time</dt>
        <dd className="mono">
          {zone === 'utc' ? (
            entry.time
          ) : (
            <span title={entry.time}>
              {shortTime(entry.time)} {zoneLabel(nsToMs(entry.timestamp_ns))}
            </span>
          )}{' '}
          <span className="muted">({entry.timestamp_ns} ns)</span>
        </dd>
        <dt>span</dt>
        <dd>
          {entry.span_name} {entry.span_kind ? <span className="muted">({entry.span_kind})</span> : null}
        </dd>
        <dt>provider</dt>
        <dd>
          {entry.provider}
          {entry.model ? ` · ${entry.model}` : ''}
        </dd>
        {entry.trace_id ? (
          <>
            <dt>trace / span</dt>
            <dd className="mono small">
              {entry.trace_id} / {entry.span_id}
            </dd>
          </>
        ) : null}
        <dt>canonical_hash</dt>
        <dd>
          <Hash
            value={entry.canonical_hash}
            expected={c?.computed_canonical_hash}
            testId="detail-canonical-hash"
          />
          {c && c.computed_canonical_hash !== entry.canonical_hash ? (
            <div className="bad-text small">
              sha256(body) = <Hash value={c.computed_canonical_hash} />
            </div>
          ) : null}
        </dd>
        <dt>prev_hash</dt>
        <dd>
          <Hash value={entry.prev_hash} expected={c?.expected_prev_hash} />
          {c && c.expected_prev_hash !== entry.prev_hash ? (
            <div className="bad-text small">
              expected <Hash value={c.expected_prev_hash} />
            </div>
          ) : null}
        </dd>
        <dt>hmac_hash</dt>
        <dd>
          <Hash value={entry.hmac_hash} />
        </dd>
        {entry.semantic_body_hash ? (
          <>
            <dt>semantic hash</dt>
            <dd>
              <Hash value={entry.semantic_body_hash} />
            </dd>
          </>
        ) : null}
      </dl>
      {entry.replay ? (
        <table className="grid compact" data-testid="replay-attrs">
          <thead>
            <tr>
              <th colSpan={2}>replay attributes</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(entry.replay).map(([k, v]) => (
              <tr key={k}>
                <td className="mono small">{k.replace('bijotel.replay.', '')}</td>
                <td className="mono small break">{value(v)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No replay attributes recorded.</p>
      )}
      {children}
      <div className="body-head">
        <span>canonical body</span>
        <span className="muted small">
          {formatCount(entry.body_bytes)} B{entry.body_error ? ` · ${entry.body_error}` : ''}
        </span>
      </div>
      <pre className="body" data-testid="entry-body">
        {bodyText}
      </pre>
      {renderAfter?.(entry)}
    </div>
  )
}
