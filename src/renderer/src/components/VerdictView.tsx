// A verify verdict: VALID / BROKEN, where it first broke, the findings, the key segments.
import type { Finding, KeyInfo, VerifyVerdict } from '../../../shared/verify-types'
import { counted, formatCount } from '../lib/format'
import { findingLabel, findingRange, rotationPoints, verdictWord } from '../lib/verdict'
import { keyLabel, keyNotes } from '../lib/key-notes'
import { Hash } from './Hash'
import { keysSentence } from '../../../shared/key-words'
import './VerdictView.css'

interface Props {
  verdict: VerifyVerdict
  keys?: KeyInfo[]
  onSelectSeq?: (seq: number) => void
}

function SeqLink({ seq, onSelectSeq }: { seq: number; onSelectSeq?: ((seq: number) => void) | undefined }) {
  if (!onSelectSeq) return <>{seq}</>
  return (
    <button type="button" className="link" onClick={() => onSelectSeq(seq)} title={`show seq ${seq}`}>
      {seq}
    </button>
  )
}

export function VerdictView({ verdict, keys = [], onSelectSeq }: Props) {
  const word = verdictWord(verdict)
  const rotations = rotationPoints(verdict.key_segments)
  const notes = keyNotes(verdict, keys.length)
  const fp = (i: number): string => keys.find((k) => k.index === i)?.fingerprint ?? ''
  return (
    <div className="verdict" data-testid="verdict">
      <div className={`verdict-head ${word.toLowerCase()}`}>
        <span className="verdict-word" data-testid="verdict-word">
          {word}
        </span>
        <span className="verdict-sub">
          {counted(verdict.entries, 'entry', 'entries')}
          {verdict.first_seq !== null ? `, seq ${verdict.first_seq}–${verdict.last_seq}` : ''}
        </span>
      </div>
      {notes.map((n) => (
        <p key={n.kind} className="key-note" role="note" data-testid="key-note" data-kind={n.kind}>
          {n.text}
        </p>
      ))}
      {verdict.first_bad_seq !== null ? (
        <p className="first-bad" data-testid="first-bad-seq">
          first bad seq <SeqLink seq={verdict.first_bad_seq} onSelectSeq={onSelectSeq} />
        </p>
      ) : null}
      <dl className="kv">
        <dt>head HMAC</dt>
        <dd>
          <Hash value={verdict.head_hmac} />
        </dd>
        {verdict.range ? (
          <>
            <dt>range</dt>
            <dd>
              {verdict.range.from_seq === null
                ? 'empty'
                : `seq ${verdict.range.from_seq}–${verdict.range.to_seq}`}{' '}
              of {formatCount(verdict.range.total_in_chain)}
            </dd>
          </>
        ) : null}
        {verdict.boundary ? (
          <>
            <dt>boundary</dt>
            <dd>
              {verdict.boundary.kind} at seq {verdict.boundary.seq}: {verdict.boundary.detail}
            </dd>
          </>
        ) : null}
        {verdict.prior_check ? (
          <>
            <dt>prior head</dt>
            <dd className={verdict.prior_check.found ? '' : 'bad-text'} data-testid="prior-check-detail">
              {verdict.prior_check.detail}
            </dd>
            {verdict.prior_check.rows_detail !== undefined ? (
              <>
                <dt>prior rows</dt>
                <dd
                  className={verdict.prior_check.rows_unchanged ? '' : 'bad-text'}
                  data-testid="prior-check-rows"
                  data-unchanged={String(verdict.prior_check.rows_unchanged)}
                >
                  {verdict.prior_check.rows_detail}
                </dd>
              </>
            ) : null}
          </>
        ) : null}
      </dl>
      {keysSentence(
        verdict,
        keys.map((k) => k.fingerprint),
      ) !== null ? (
        <p className="warn" data-testid="verdict-keys">
          Keys:{' '}
          {keysSentence(
            verdict,
            keys.map((k) => k.fingerprint),
          )}
        </p>
      ) : null}
      {(verdict.notices ?? []).length > 0 ? (
        <ul className="notices" data-testid="verdict-notices">
          {(verdict.notices ?? []).map((n, i) => (
            <li key={i}>Notice: {n}</li>
          ))}
        </ul>
      ) : null}
      <FindingsTable findings={verdict.findings} onSelectSeq={onSelectSeq} />
      {verdict.key_segments.length > 0 ? (
        <table className="grid compact" data-testid="key-segments">
          <thead>
            <tr>
              <th>key</th>
              <th>sealed seq</th>
              <th className="num">rows</th>
            </tr>
          </thead>
          <tbody>
            {verdict.key_segments.map((s, i) => (
              <tr key={i}>
                <td>
                  {keyLabel(s.key_index)} <code className="muted">{fp(s.key_index)}</code>
                </td>
                <td>
                  <SeqLink seq={s.from_seq} onSelectSeq={onSelectSeq} />–
                  <SeqLink seq={s.to_seq} onSelectSeq={onSelectSeq} />
                </td>
                <td className="num">{formatCount(s.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {rotations.length > 0 ? (
        <ul className="rotations" data-testid="rotation-points">
          {rotations.map((r) => (
            <li key={r.seq}>
              key rotation at seq <SeqLink seq={r.seq} onSelectSeq={onSelectSeq} />: {keyLabel(r.from_key)} →{' '}
              {keyLabel(r.to_key)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

/**
 * Findings listed: a chain with a gap at every other seq has a finding per gap (10^6 in a 2M-row
 * file), and the table drew a row for each. The first are listed in seq order and the rest counted,
 * as the integrity panel does.
 */
export const FINDINGS_LISTED = 200

/** The findings of a verdict (keyed, or the keyless check's), each seq a link to its row. */
export function FindingsTable({
  findings,
  onSelectSeq,
  testIdPrefix = '',
}: {
  findings: Finding[]
  onSelectSeq?: ((seq: number) => void) | undefined
  /** Prefixes the test ids (`findings`, `finding-row`) where two tables can be on screen. */
  testIdPrefix?: string
}) {
  const listed = findings.length > FINDINGS_LISTED ? findings.slice(0, FINDINGS_LISTED) : findings
  return findings.length > 0 ? (
    <>
      <table className="grid compact" data-testid={`${testIdPrefix}findings`}>
        <thead>
          <tr>
            <th>finding</th>
            <th>seq</th>
            <th className="num">rows</th>
            <th className="num">missing</th>
          </tr>
        </thead>
        <tbody>
          {listed.map((f, i) => (
            <tr key={i} data-testid={`${testIdPrefix}finding-row`} data-kind={f.kind}>
              <td>
                <span className="pill bad">{findingLabel(f)}</span>
              </td>
              <td>
                <SeqLink seq={f.from_seq} onSelectSeq={onSelectSeq} />
                {f.to_seq !== f.from_seq ? (
                  <>
                    –<SeqLink seq={f.to_seq} onSelectSeq={onSelectSeq} />
                  </>
                ) : null}
                <span className="sr-only">{findingRange(f)}</span>
              </td>
              <td className="num">{formatCount(f.count)}</td>
              <td className="num">{f.missing === undefined ? '' : formatCount(f.missing)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {findings.length > listed.length ? (
        <p className="muted small" data-testid={`${testIdPrefix}findings-more`}>
          … +{formatCount(findings.length - listed.length)} more{' '}
          {findings.length - listed.length === 1 ? 'finding' : 'findings'} after seq {listed.at(-1)!.to_seq}{' '}
          (the exported report has them all)
        </p>
      ) : null}
    </>
  ) : (
    <p className="muted small">No findings.</p>
  )
}
