// The session's replay checks (listReplayChecks), newest first; they go into the report.
import type { ReplayCheck } from '../../../shared/replay-types'
import { formatCount, shortHash, shortTime } from '../lib/format'
import { useTimeZone } from '../lib/stores/settings-store'

/**
 * Checks listed, newest first: one batch adds a check per line (a 96 MiB JSONL holds about a million),
 * and drawing them all froze the page. The rest are counted below; the report has every one.
 */
export const REPLAY_LISTED = 2000

export function ReplayList({
  checks,
  onSelectSeq,
}: {
  checks: ReplayCheck[]
  onSelectSeq: (seq: number) => void
}) {
  useTimeZone() // drawn again when the zone times are shown in changes
  if (checks.length === 0)
    return (
      <p className="muted small pad">
        No replay checks yet in this session. They are part of the exported report.
      </p>
    )
  const shown = checks.slice(-REPLAY_LISTED).reverse()
  const more = checks.length - shown.length
  return (
    <>
      <table className="grid compact" data-testid="replay-list">
        <thead>
          <tr>
            <th>seq</th>
            <th>verdict</th>
            <th>source</th>
            <th>replay hash</th>
            <th>row</th>
            <th>checked</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((c, i) => (
            <tr key={`${c.checked_at}-${i}`} data-testid="replay-list-row">
              <td>
                <button type="button" className="link" onClick={() => onSelectSeq(c.seq)}>
                  {c.seq}
                </button>
              </td>
              <td>
                <span className={`pill ${c.result.match ? 'ok' : 'bad'}`}>
                  {c.result.match ? 'MATCH' : 'MISMATCH'}
                </span>
              </td>
              <td className="small">{c.source.kind === 'file' ? (c.source.name ?? 'file') : 'text'}</td>
              <td className="mono small" title={c.result.replay_hash}>
                {shortHash(c.result.replay_hash)}
              </td>
              <td className="small">{c.row_verified === null ? '—' : c.row_verified ? '✓' : '✗'}</td>
              <td className="small">{shortTime(c.checked_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {more > 0 ? (
        <p className="muted small pad" data-testid="replay-list-more">
          {formatCount(more)} earlier check{more === 1 ? '' : 's'} not listed (the exported report has them
          all)
        </p>
      ) : null}
    </>
  )
}
