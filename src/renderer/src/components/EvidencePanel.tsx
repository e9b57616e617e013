// The evidence record of the opened chain: what file, which bytes, what it holds.
import { useState } from 'react'
import type { ChainOverview, EvidenceFile, NameCount, NamesLeft } from '../../../shared/chain-types'
import { counted, formatBytes, formatCount, formatSpan, shortTime, shownName } from '../lib/format'
import { Hash } from './Hash'
import { useTimeZone } from '../lib/stores/settings-store'
import { zoneLabel } from '../lib/time-zone'
import './EvidencePanel.css'

function FileRows({ label, file, testId }: { label: string; file: EvidenceFile; testId: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="path" title={file.path} data-testid={`${testId}-path`}>
        {file.path}
      </dd>
      {file.link_target ? (
        <>
          <dt>link to</dt>
          <dd className="path" title={file.link_target}>
            {file.link_target}
          </dd>
        </>
      ) : null}
      <dt>size</dt>
      <dd data-testid={`${testId}-size`}>{formatBytes(file.size)}</dd>
      <dt>SHA-256</dt>
      <dd>
        {file.sha256 === '' ? (
          <span className="muted" data-testid={`${testId}-sha256-pending`}>
            hashing…
          </span>
        ) : (
          <Hash value={file.sha256} testId={`${testId}-sha256`} />
        )}
      </dd>
      <dt>modified</dt>
      <dd>
        {shortTime(file.mtime)} {zoneLabel(Date.parse(file.mtime))}
      </dd>
    </>
  )
}

const MODELS_SHOWN = 8

/** The names the overview leaves out (it lists the most frequent): how many, and their rows. */
function NamesLeftNote({ left, one, testId }: { left: NamesLeft | undefined; one: string; testId: string }) {
  if (!left) return null
  return (
    <span className="muted small" data-testid={testId}>
      and {counted(left.names, `other ${one}`)} ({counted(left.rows, 'row')}): search them in the filter bar
    </span>
  )
}

export function EvidencePanel({
  overview,
  onPickProvider,
  onPickModel,
}: {
  overview: ChainOverview
  /** A chip chosen: its name as the overview sent it (maybe clipped) and its place in the list. */
  onPickProvider?: (p: NameCount, offset: number) => void
  onPickModel?: (m: NameCount, offset: number) => void
}) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const ev = overview.evidence
  const [allModels, setAllModels] = useState(false)
  const models = allModels ? overview.models : overview.models.slice(0, MODELS_SHOWN)
  // Providers as models: a chain names as many as it has rows (65,536 chips froze the panel).
  const [allProviders, setAllProviders] = useState(false)
  const providers = allProviders ? overview.providers : overview.providers.slice(0, MODELS_SHOWN)
  return (
    <div className="evidence" data-testid="evidence">
      <dl className="kv">
        <FileRows label="file" file={ev.db} testId="evidence-db" />
        {ev.wal ? <FileRows label="-wal" file={ev.wal} testId="evidence-wal" /> : null}
        {ev.wal === null ? (
          <>
            <dt>-wal</dt>
            <dd className="muted">none</dd>
          </>
        ) : null}
        {ev.side_files.length > 0 ? (
          <>
            <dt>side files</dt>
            <dd>
              {ev.side_files
                .map(
                  (f) =>
                    `${f.path.split(/[\\/]/).pop()} (${f.applied ? 'applied by SQLite' : 'recorded, not used'})`,
                )
                .join(', ')}
            </dd>
          </>
        ) : null}
        <dt>read by</dt>
        <dd>
          {ev.method}
          {ev.db.sha256 === '' ? (
            // Not known yet is never shown as changed (issue 35): the evidence is still being hashed.
            // Read in place, the hash may be done before the index: then the re-check is known.
            <span
              className="pill unknown"
              title="the evidence is being hashed; its size and mtime are re-checked after it"
              data-testid="evidence-checking"
            >
              <span className="spinner" aria-hidden /> checking…
            </span>
          ) : ev.unchanged_after_copy ? (
            <span
              className="pill ok"
              title="size and mtime re-checked after the hash (and, where a copy was made, its ctime too)"
            >
              unchanged
            </span>
          ) : (
            <span className="pill bad" title="the file changed since it was opened (size, mtime or name)">
              CHANGED
            </span>
          )}
        </dd>
        <dt>journal</dt>
        <dd>{overview.journal_mode}</dd>
      </dl>
      <div className="stats">
        <div className="stat">
          <div className="stat-value" data-testid="overview-entries">
            {formatCount(overview.entries)}
          </div>
          <div className="stat-label">entries</div>
        </div>
        <div className="stat">
          <div className="stat-value" data-testid="overview-seq">
            {overview.first_seq === null ? '—' : `${overview.first_seq}–${overview.last_seq}`}
          </div>
          <div className="stat-label">seq range</div>
        </div>
        <div className="stat">
          <div className="stat-value">
            {formatSpan(overview.first_timestamp_ns, overview.last_timestamp_ns)}
          </div>
          <div className="stat-label">time span</div>
        </div>
      </div>
      <dl className="kv">
        <dt>first</dt>
        <dd>{shortTime(overview.first_time)}</dd>
        <dt>last</dt>
        <dd>{shortTime(overview.last_time)}</dd>
        <dt>providers</dt>
        <dd className="chips" data-testid="overview-providers">
          {overview.providers.length === 0 ? (
            <span className="muted">{overview.pending ? 'indexing…' : 'none recorded'}</span>
          ) : null}
          {providers.map((p, i) => (
            <button
              type="button"
              key={i}
              className="chip"
              onClick={() => onPickProvider?.(p, i)}
              title={`filter by ${shownName(p.name)}`}
            >
              {shownName(p.name)} <span className="muted">{formatCount(p.count)}</span>
            </button>
          ))}
          {overview.providers.length > MODELS_SHOWN ? (
            <button
              type="button"
              className="link small"
              onClick={() => setAllProviders((a) => !a)}
              data-testid="overview-providers-more"
            >
              {allProviders ? 'fewer' : `+${overview.providers.length - MODELS_SHOWN} more`}
            </button>
          ) : null}
          <NamesLeftNote left={overview.providers_left} one="provider" testId="overview-providers-left" />
        </dd>
        <dt>models</dt>
        <dd className="chips" data-testid="overview-models">
          {overview.models.length === 0 ? (
            <span className="muted" data-testid="overview-models-state">
              {overview.pending ? 'indexing…' : 'none recorded'}
            </span>
          ) : null}
          {models.map((m, i) => (
            <button
              type="button"
              key={i}
              className="chip"
              onClick={() => onPickModel?.(m, i)}
              title={`filter by ${shownName(m.name)}`}
            >
              {shownName(m.name)} <span className="muted">{formatCount(m.count)}</span>
            </button>
          ))}
          {overview.models.length > MODELS_SHOWN ? (
            <button type="button" className="link small" onClick={() => setAllModels((a) => !a)}>
              {allModels ? 'fewer' : `+${overview.models.length - MODELS_SHOWN} more`}
            </button>
          ) : null}
          <NamesLeftNote left={overview.models_left} one="model" testId="overview-models-left" />
        </dd>
      </dl>
    </div>
  )
}
