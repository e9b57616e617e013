// The entry panel for a seq no live row holds (issue 35): what is known of it and the seqs around it
// — the verdict's findings in its words, the recovered rows with a link to each — and the live rows
// before and after it. With no verdict yet it says so: absence from the live chain is all that shows.
import type { GapKnowledge } from '../lib/gap-facts'
import { spanTitle, type GapSpan } from '../lib/gap-rows'
import { bodyLabel, linkLabel, proofLabel, rowKey, seqLabel } from '../lib/recovered'
import './gap-row.css'

interface Props {
  seq: number
  span: GapSpan
  knowledge: GapKnowledge
  onSelectSeq: (seq: number) => void
  onShowRecovered: (key: string) => void
}

export function MissingSeqDetail({ seq, span, knowledge: k, onSelectSeq, onShowRecovered }: Props) {
  return (
    <div className="detail missing-detail" data-testid="missing-detail" data-seq={seq}>
      <div className="detail-head">
        <button
          type="button"
          className="btn small"
          disabled={span.after === null}
          onClick={() => span.after !== null && onSelectSeq(span.after)}
          data-testid="detail-prev"
          title="the live row before ([)"
        >
          ← {span.after ?? ''}
        </button>
        <h3>
          seq <span data-testid="detail-seq">{seq}</span>: no live row
        </h3>
        <button
          type="button"
          className="btn small"
          disabled={span.before === null}
          onClick={() => span.before !== null && onSelectSeq(span.before)}
          data-testid="detail-next"
          title="the live row after (])"
        >
          {span.before ?? ''} →
        </button>
      </div>
      <p data-testid="missing-span">
        {spanTitle(span)}: no row of the live chain holds {span.from === span.to ? 'it' : 'them'}
        {span.after !== null && span.before !== null
          ? ` (the live rows around are seq ${span.after} and ${span.before}).`
          : span.after !== null
            ? ` (the live chain ends at seq ${span.after}).`
            : span.before !== null
              ? ` (the live chain starts at seq ${span.before}).`
              : '.'}
      </p>
      <h4>What the verdict says</h4>
      {k.verdict === null ? (
        <p className="muted" data-testid="missing-unverified">
          Not verified yet: no verdict has looked at {span.from === span.to ? 'this seq' : 'these seqs'}.
          Verify the chain to learn what its findings say.
        </p>
      ) : k.facts.length === 0 ? (
        <p data-testid="missing-no-finding">
          The {k.verdict === 'verify' ? 'verdict' : 'keyless check'} has no finding that names{' '}
          {span.from === span.to ? 'this seq' : 'these seqs'}.
        </p>
      ) : (
        <ul className="facts" data-testid="missing-facts">
          {k.facts.map((f, i) => (
            <li key={i} data-testid="missing-fact" data-kind={f.kind}>
              <span className="pill bad">{f.label}</span> <span className="muted small">({k.verdict})</span>{' '}
              {f.text}
            </li>
          ))}
        </ul>
      )}
      <h4>What the files remember</h4>
      {k.recovered.length > 0 ? (
        <ul className="facts" data-testid="missing-recovered">
          {k.recovered.map((r) => (
            <li key={rowKey(r)} data-testid="missing-recovered-row" data-seq={r.seq ?? ''}>
              seq {seqLabel(r)}: {r.status}, {proofLabel(r)}, {bodyLabel(r)}, links to {linkLabel(r)} ·{' '}
              <button
                type="button"
                className="link"
                onClick={() => onShowRecovered(rowKey(r))}
                data-testid="missing-open-recovered"
              >
                open in Recovered
              </button>
            </li>
          ))}
        </ul>
      ) : k.searched !== true ? (
        <p className="muted" data-testid="missing-not-searched">
          The files have not been searched yet (verify with a key, or Search files in the Recovered tab).
        </p>
      ) : (
        <p className="muted" data-testid="missing-none-recovered">
          No row at {span.from === span.to ? 'this seq' : 'these seqs'} was recovered from the files.
        </p>
      )}
    </div>
  )
}
