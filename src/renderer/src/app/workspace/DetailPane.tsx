// The detail pane: the selected entry (its own checks, hashes, body) with the replay checker, or
// the session's replay checks; a replay file dropped on it is checked against the selected entry.
import { useState, type DragEvent } from 'react'
import { EntryDetail } from '../../components/EntryDetail'
import { ErrorBoundary } from '../../components/ErrorBoundary'
import { ReplayChecker } from '../../components/ReplayChecker'
import { ReplayBatchPanel } from '../../components/ReplayBatchPanel'
import { ReplayList } from '../../components/ReplayList'
import { useStore } from '../../lib/stores/store'
import { ReplayResultView } from '../../components/ReplayResultView'
import { looksLikeChain } from '../../lib/replay-format'
import { useWorkspace, useWorkspaceStore } from './context'
import { EntryVersions, RecoveredTab, RecoveredTabLabel } from './Recovered'
import { MissingSeq, useIsMissing } from './Gaps'
import type { Flags } from './use-flags'
import './DetailPane.css'

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files')
}

export function DetailPane({ flags }: { flags: Flags }) {
  const ws = useWorkspaceStore()
  const selected = useWorkspace((s) => s.selected)
  const detailTab = useWorkspace((s) => s.detailTab)
  const checks = useWorkspace((s) => s.checks)
  const checkVersion = useWorkspace((s) => s.checkVersion)
  const replayMode = useWorkspace((s) => s.replayMode)
  const replayBusy = useWorkspace((s) => s.replayBusy)
  const replayError = useWorkspace((s) => s.replayError)
  const batch = useStore(ws.batch, (s) => s)
  const [drop, setDrop] = useState(false)
  const selectedCheck = selected ? (flags.replayBySeq.get(selected.seq) ?? null) : null
  const missing = useIsMissing(selected?.seq ?? null)

  return (
    <div
      className={`detail-pane${drop ? ' drop' : ''}`}
      data-testid="detail-pane"
      onDragOver={(e) => {
        if (!selected || !hasFiles(e)) return
        e.preventDefault()
        e.stopPropagation()
        setDrop(true)
      }}
      onDragLeave={() => setDrop(false)}
      onDrop={(e) => {
        setDrop(false)
        const f = e.dataTransfer?.files?.[0]
        if (!selected || !f || looksLikeChain(f.name)) return
        e.preventDefault()
        e.stopPropagation()
        void ws.replayFile(selected.seq, f)
      }}
    >
      <div className="tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={detailTab === 'entry'}
          className={detailTab === 'entry' ? 'on' : ''}
          onClick={() => ws.setDetailTab('entry')}
          data-testid="tab-entry"
        >
          Entry
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={detailTab === 'replays'}
          className={detailTab === 'replays' ? 'on' : ''}
          onClick={() => ws.setDetailTab('replays')}
          data-testid="tab-replays"
        >
          Replay checks ({checks.length})
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={detailTab === 'recovered'}
          className={detailTab === 'recovered' ? 'on' : ''}
          onClick={() => ws.setDetailTab('recovered')}
          data-testid="tab-recovered"
        >
          <RecoveredTabLabel />
        </button>
      </div>
      <ErrorBoundary where="entry detail" resetKey={selected?.seq}>
        {detailTab === 'replays' ? (
          <>
            <ReplayBatchPanel
              items={batch.items}
              pending={batch.pending}
              busy={batch.busy}
              error={batch.error}
              omitted={batch.omitted}
              onSelectSeq={ws.selectSeq}
              onAssign={(f, seq) => void ws.batch.assign(f, seq)}
              onDismiss={ws.batch.dismiss}
              onClear={ws.batch.clear}
            />
            <ReplayList checks={checks} onSelectSeq={ws.selectSeq} />
          </>
        ) : detailTab === 'recovered' ? (
          <RecoveredTab />
        ) : selected && missing ? (
          <MissingSeq seq={selected.seq} />
        ) : selected ? (
          <EntryDetail
            seq={selected.seq}
            checkVersion={checkVersion}
            onSelectSeq={ws.select}
            flaggedBy={flags.isFlagged(selected.seq)}
            onLoaded={ws.detailLoaded}
            renderAfter={(e) => <EntryVersions entry={e} />}
          >
            {selectedCheck ? <ReplayResultView check={selectedCheck} /> : null}
            <ReplayChecker
              seq={selected.seq}
              hasReplay={true}
              mode={replayMode}
              onModeChange={ws.setReplayMode}
              busy={replayBusy}
              error={replayError}
              onCheckText={(text, prompt) =>
                void ws.runReplay({ seq: selected.seq, text, ...(prompt !== null ? { prompt } : {}) })
              }
              onPickFile={(f) => void ws.replayFile(selected.seq, f)}
            />
          </EntryDetail>
        ) : (
          <div className="detail empty muted" data-testid="no-selection">
            Select a row (click, or ↑ ↓ and Enter), a finding, or a mark on the timeline.
          </div>
        )}
      </ErrorBoundary>
    </div>
  )
}
