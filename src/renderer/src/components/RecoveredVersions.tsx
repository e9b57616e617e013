// In the entry panel of a live row that the files remember differently: each recovered earlier
// version beside the live body, the differences highlighted (what did the model originally
// answer?), and the row's page history — which page image or WAL frame held which version.
import type { RecoveredRow } from '../../../shared/recovery-types'
import { bodyText, linkLabel, pageHistory, proofLabel, rowKey, sourceLabel } from '../lib/recovered'
import { Hash } from './Hash'
import { PageHistory } from './PageHistory'
import { SideBySideDiff } from './SideBySideDiff'

interface Props {
  /** The live row's body as the entry panel shows it (pretty-printed JSON). */
  liveBody: string
  /** Recovered earlier versions of this seq. */
  versions: RecoveredRow[]
  /** Whether the verdict found this seq rewritten. */
  rewritten: boolean
  onShowRecovered: (key: string) => void
}

export function RecoveredVersions({ liveBody, versions, rewritten, onShowRecovered }: Props) {
  const earlier = versions.filter((v) => v.status === 'superseded')
  if (earlier.length === 0) return null
  const label = (i: number): string => (earlier.length === 1 ? 'earlier version' : `earlier version ${i + 1}`)
  return (
    <section className="recovered-versions" data-testid="rewritten-versions" data-count={earlier.length}>
      <div className="body-head">
        <span className={rewritten ? 'bad-text' : 'warn-text'}>
          {rewritten
            ? 'rewritten: the files remember a proven earlier version of this row'
            : 'the files remember an earlier version of this row'}
        </span>
      </div>
      {earlier.map((v, i) => {
        const body = bodyText(v)
        return (
          <div key={rowKey(v)} className="recovered-version" data-testid="earlier-version">
            <div className="row gap wrap small">
              <b>{label(i)}</b>
              <span className={`pill ${v.key_index === null ? 'unknown' : 'ok'}`}>{proofLabel(v)}</span>
              <span>links to {linkLabel(v)}</span>
              <span className="mono muted">{sourceLabel(v.source)}</span>
              <button type="button" className="link" onClick={() => onShowRecovered(rowKey(v))}>
                in the Recovered tab
              </button>
            </div>
            <div className="small">
              hmac_hash <Hash value={v.hmac_hash} />
            </div>
            {body.note ? <p className="muted small">{body.note}</p> : null}
            <SideBySideDiff
              left={body.text}
              right={liveBody}
              leftTitle={`${label(i)} (recovered${v.key_index === null ? ', unproven' : ', proven'})`}
              rightTitle="live body"
            />
          </div>
        )
      })}
      <PageHistory history={pageHistory(earlier)} versionLabel={label} />
    </section>
  )
}
