// The payload-drift panel of the opened chain, beside the integrity monitor: payload drift and
// structural integrity side by side. State in the workspace's DriftStore; the rows are the view's.
import { useMemo } from 'react'
import { DriftPanel } from '../../components/DriftPanel'
import { driftRowsNote } from '../../lib/drift'
import { driftRequest } from '../../lib/stores/drift-store'
import { useStore } from '../../lib/stores/store'
import { useWorkspace, useWorkspaceStore } from './context'

export function DriftSection() {
  const ws = useWorkspaceStore()
  const view = useWorkspace((s) => s.view)
  const state = useStore(ws.drift, (s) => s)
  const job = useStore(ws.drift.job, (s) => s)
  // The keyed verdict when held, else the keyless check the engine ran on open.
  const keyed = useWorkspace((s) => s.verdict)
  const keyless = useStore(ws.keyless, (s) => s.verdict)
  const rowsNote = useMemo(() => driftRowsNote(keyed ?? keyless), [keyed, keyless])
  const stale = useMemo(
    () =>
      state.request !== null &&
      JSON.stringify(driftRequest(state.controls, view)) !== JSON.stringify(state.request),
    [state.request, state.controls, view],
  )
  return (
    <DriftPanel
      controls={state.controls}
      series={state.series}
      request={state.request}
      stale={stale}
      group={state.group}
      status={job.status}
      error={state.error ?? (job.error === 'cancelled' ? null : job.error)}
      rowsNote={rowsNote}
      onRun={(c) => void ws.drift.run(c, view)}
      onCancel={ws.drift.cancel}
      onGroup={ws.drift.setGroup}
      onSelectSeq={ws.selectSeq}
    />
  )
}
