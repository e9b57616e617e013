// One recovered row: its proof, hashes, link, every place it was found, its page history, and its
// body — as text, never as HTML.
import { useEffect, useRef } from 'react'
import type { RecoveredRow } from '../../../shared/recovery-types'
import type { Finding } from '../../../shared/verify-types'
import { recoveredStatusWord, seqFromWords } from '../../../shared/recovery-words'
import { isoOfNs } from '../lib/format'
import {
  bodyLabel,
  bodyText,
  linkLabel,
  pageHistory,
  proofLabel,
  rowKey,
  seqLabel,
  sourceLabel,
} from '../lib/recovered'
import { Hash } from './Hash'
import { PageHistory } from './PageHistory'
import { RecoveredStatus } from './RecoveredStatus'
import './EntryDetail.css'

/**
 * Scroll the nearest scrolling ancestor of `el` so `el` is at its top (the detail under the list in
 * the Recovered panel), and move nothing else: the table and the other panes stay where they were.
 */
function toTopOfPane(el: HTMLElement): void {
  for (let p = el.parentElement; p; p = p.parentElement) {
    if (p.scrollHeight <= p.clientHeight || !/(auto|scroll)/.test(getComputedStyle(p).overflowY)) continue
    p.scrollTop += el.getBoundingClientRect().top - p.getBoundingClientRect().top
    return
  }
}

interface Props {
  row: RecoveredRow
  /** The verdict's findings: the status words follow them. */
  findings: readonly Finding[]
  onSelectSeq: (seq: number) => void
}

export function RecoveredRowView({ row, findings, onSelectSeq }: Props) {
  const body = bodyText(row)
  const live = row.status === 'superseded' && row.seq !== null
  // A row chosen (in the list, from a link, a gap row or the timeline) is brought into view: below a
  // long list its detail would otherwise open out of sight (issue 35: every link lands in view).
  const root = useRef<HTMLDivElement>(null)
  const key = rowKey(row)
  useEffect(() => {
    if (root.current) toTopOfPane(root.current)
  }, [key])
  return (
    <div
      className="detail recovered-detail"
      data-testid="recovered-detail"
      data-seq={row.seq ?? ''}
      ref={root}
    >
      <div className="detail-head">
        <h3>
          recovered seq <span data-testid="recovered-detail-seq">{seqLabel(row)}</span>
        </h3>
        <RecoveredStatus row={row} findings={findings} />
        <span className={`pill ${row.key_index === null ? 'unknown' : 'ok'}`}>{proofLabel(row)}</span>
        <div className="grow" />
        {live ? (
          <button
            type="button"
            className="btn small"
            onClick={() => onSelectSeq(row.seq!)}
            data-testid="recovered-show-live"
          >
            live seq {row.seq} →
          </button>
        ) : null}
      </div>
      <dl className="kv">
        <dt>seq from</dt>
        <dd>{seqFromWords(row)}</dd>
        <dt>time</dt>
        <dd className="mono">
          {row.timestamp_ns
            ? `${isoOfNs(row.timestamp_ns)} (${row.timestamp_ns} ns, unsealed)`
            : 'not recovered'}
        </dd>
        <dt>body</dt>
        <dd>{bodyLabel(row)}</dd>
        <dt>links to</dt>
        <dd>{linkLabel(row)}</dd>
        <dt>canonical_hash</dt>
        <dd>
          <Hash value={row.canonical_hash} />
        </dd>
        <dt>prev_hash</dt>
        <dd>
          <Hash value={row.prev_hash} />
        </dd>
        <dt>hmac_hash</dt>
        <dd>
          <Hash value={row.hmac_hash} />
        </dd>
        <dt>found in</dt>
        <dd>
          <ul className="plain small mono" data-testid="recovered-sources">
            {row.sources.map((s, i) => (
              <li key={i}>{sourceLabel(s)}</li>
            ))}
          </ul>
        </dd>
      </dl>
      <PageHistory
        history={pageHistory([row])}
        versionLabel={() => `this version (${recoveredStatusWord(row, findings)})`}
      />
      <div className="body-head">
        <span>recovered body</span>
        <span className="muted small">{body.note ?? ''}</span>
      </div>
      <pre className="body" data-testid="recovered-body">
        {body.text}
      </pre>
    </div>
  )
}
