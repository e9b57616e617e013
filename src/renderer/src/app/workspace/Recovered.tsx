// The workspace's view of what the files remember: the Recovered tab (the panel, from the chain's
// RecoveredStore) and, in the entry panel, the recovered earlier versions of the row shown.
import type { EntryDetail } from '../../../../shared/chain-types'
import { RecoveredPanel } from '../../components/RecoveredPanel'
import { RecoveredVersions } from '../../components/RecoveredVersions'
import { useStore } from '../../lib/stores/store'
import { useWorkspaceStore } from './context'

export function RecoveredTab() {
  const ws = useWorkspaceStore()
  const rec = ws.recovered
  const state = useStore(rec, (s) => s)
  const job = useStore(rec.job, (s) => s)
  return (
    <RecoveredPanel
      state={state}
      job={job}
      selectedRow={rec.selectedRow()}
      onRecover={() => void rec.recover()}
      onCancel={rec.job.cancel}
      onSelect={rec.select}
      onSelectSeq={ws.selectSeq}
    />
  )
}

/** The tab's label: how many rows the files gave back (once searched). */
export function RecoveredTabLabel() {
  const ws = useWorkspaceStore()
  const n = useStore(ws.recovered, (s) => (s.summary ? s.rows.length : null))
  return <>Recovered{n === null ? '' : ` (${n})`}</>
}

/** After the live body of `entry`: its recovered earlier versions, side by side with it. */
export function EntryVersions({ entry }: { entry: EntryDetail }) {
  const ws = useWorkspaceStore()
  const rows = useStore(ws.recovered, (s) => s.rows)
  const rewritten = useStore(ws.recovered, (s) => s.rewritten)
  const versions = rows.filter((r) => r.seq === entry.seq)
  if (versions.length === 0) return null
  return (
    <RecoveredVersions
      liveBody={entry.body_pretty ?? entry.body_text ?? ''}
      versions={versions}
      rewritten={rewritten.has(entry.seq)}
      onShowRecovered={ws.showRecovered}
    />
  )
}
