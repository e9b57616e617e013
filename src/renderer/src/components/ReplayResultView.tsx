// One replay check: MATCH / MISMATCH with the CLI's fields, the row's own verification, the prompt.
import { printable } from '../../../shared/printable'
import type { ReplayCheck } from '../../../shared/replay-types'
import { modelVersionShown, originalHashShown } from '../../../shared/replay-lines'
import { formatCount, shortTime } from '../lib/format'
import { promptLabel, pyBool, replayCliLines, rowVerifiedLabel } from '../lib/replay-format'
import { useTimeZone } from '../lib/stores/settings-store'
import './EntryDetail.css'
import './replay.css'

export function ReplayResultView({ check, compact }: { check: ReplayCheck; compact?: boolean }) {
  useTimeZone() // drawn again when the zone times are shown in changes
  const r = check.result
  return (
    <div
      className={`replay-result ${r.match ? 'match' : 'mismatch'}`}
      data-testid="replay-result"
      data-match={r.match}
      data-seq={check.seq}
    >
      <div className="replay-head">
        <span className="verdict-word" data-testid="replay-verdict">
          {r.match ? 'MATCH' : 'MISMATCH'}
        </span>
        <span>seq {check.seq}</span>
        <span className="muted small">
          {check.source.kind === 'file' ? (check.source.name ?? 'file') : 'text'} ·{' '}
          {formatCount(check.source.bytes)} B · {check.source.mode} · {shortTime(check.checked_at)}
        </span>
      </div>
      {compact ? null : (
        <dl className="kv">
          <dt>original_hash</dt>
          <dd>
            <code className="hash" data-testid="replay-original">
              {originalHashShown(r)}
            </code>
          </dd>
          <dt>replay_hash</dt>
          <dd>
            <code className="hash" data-testid="replay-hash">
              {r.replay_hash}
            </code>
          </dd>
          <dt>deterministic</dt>
          <dd>{pyBool(r.deterministic)}</dd>
          <dt>model_version</dt>
          <dd>{modelVersionShown(r)}</dd>
          {r.reason ? (
            <>
              <dt>reason</dt>
              <dd data-testid="replay-reason">{r.reason}</dd>
            </>
          ) : null}
          <dt>row</dt>
          <dd
            className={check.row_verified === false ? 'bad-text' : ''}
            data-testid="replay-row-verified"
            title={check.row_detail}
          >
            {rowVerifiedLabel(check)}{' '}
            <span className="muted">
              {/* The engine's detail may begin with the same words: said once ("row verifies row verifies:"). */}
              {String(check.row_detail ?? '').replace(/^row (verifies|does not verify):?\s*/i, '')}
            </span>
          </dd>
          <dt>prompt</dt>
          <dd className={check.prompt_match === false ? 'bad-text' : ''} data-testid="replay-prompt">
            {promptLabel(check)}
          </dd>
          <dt>file SHA-256</dt>
          <dd>
            <code className="hash muted">{check.source.sha256_of_bytes}</code>
          </dd>
        </dl>
      )}
      {compact ? null : (
        <details>
          <summary className="small muted">as the CLI prints it</summary>
          <pre className="cli" data-testid="replay-cli">
            {/* A <pre> keeps its line breaks (jsx/shown.ts): a model_version or reason holding one
                is numbered here, line by line, so it cannot print a line of its own. */}
            {replayCliLines(check.seq, r)
              .map((line) => printable(line))
              .join('\n')}
          </pre>
        </details>
      )}
    </div>
  )
}
