// The status bar (issue 35): one line at the bottom that always holds the verdict (or that none is
// known yet), the selection, the filters and the work under way, so they never scroll out of view.
// "Not verified" and "checking…" are never drawn as a failure.
import { describeView } from '../../lib/filter-state'
import { counted } from '../../lib/format'
import { verdictWord } from '../../lib/verdict'
import { useStore } from '../../lib/stores/store'
import { useWorkspace, useWorkspaceStore } from './context'

export function StatusBar() {
  const ws = useWorkspaceStore()
  const verdict = useWorkspace((s) => s.verdict)
  const keys = useWorkspace((s) => s.keys.length)
  const selected = useWorkspace((s) => s.selected?.seq ?? null)
  const view = useWorkspace((s) => s.view)
  const pending = useWorkspace((s) => s.overview.pending === true)
  const entries = useWorkspace((s) => s.overview.entries)
  const verifyStatus = useStore(ws.verifyJob, (s) => s.status)
  const keylessStatus = useStore(ws.keyless.job, (s) => s.status)
  const keyless = useStore(ws.keyless, (s) => s.verdict)

  let verdictText: string
  let tone: 'ok' | 'bad' | 'unknown'
  if (verdict) {
    const word = verdictWord(verdict)
    verdictText = `${word}${verdict.first_bad_seq !== null ? ` at seq ${verdict.first_bad_seq}` : ''}`
    tone = word === 'VALID' ? 'ok' : word === 'BROKEN' ? 'bad' : 'unknown'
  } else if (keyless && keyless.findings.length > 0) {
    verdictText = `not verified · keyless check: ${keyless.findings.length} break${keyless.findings.length === 1 ? '' : 's'}`
    tone = 'bad'
  } else {
    verdictText = keys > 0 ? 'not verified yet (keys set)' : 'not verified (no key)'
    tone = 'unknown'
  }
  const job = verifyStatus ?? keylessStatus
  const p = job?.progress
  // The engine's total can be an estimate (file pages, not rows): a share, never a row count.
  const progress = p
    ? `${verifyStatus ? 'verifying' : 'keyless check'} ${p.total > 0 ? `${Math.min(99, Math.floor((100 * p.done) / p.total))}%` : '…'} of ${counted(entries, 'row')}`
    : pending
      ? 'opening: copy and hashes in progress…'
      : null
  return (
    <footer className="statusbar" data-testid="statusbar" aria-label="status">
      <span className={`status-verdict ${tone}`} data-testid="status-verdict" data-tone={tone}>
        {verdictText}
      </span>
      <span data-testid="status-selection">{selected === null ? 'no row selected' : `seq ${selected}`}</span>
      <span data-testid="status-filters">{describeView(view)}</span>
      {progress ? (
        <span className="status-progress" data-testid="status-progress">
          {progress}
        </span>
      ) : null}
    </footer>
  )
}
