// The payload-drift panel of the opened chain, beside the integrity monitor: payload drift and
// structural integrity side by side. State in the workspace's DriftStore; the rows are the view's.
import { useMemo } from 'react'
import { DriftPanel } from '../../components/DriftPanel'
import { driftRequest } from '../../lib/stores/drift-store'
import { useStore } from '../../lib/stores/store'
import { useWorkspace, useWorkspaceStore } from './context'

export function DriftSection() {
  const ws = useWorkspaceStore()
  const view = useWorkspace((s) => s.view)
  const state = useStore(ws.drift, (s) => s)
  const job = useStore(ws.drift.job, (s) => s)
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
      onRun={(c) => void ws.drift.run(c, view)}
      onCancel={ws.drift.cancel}
      onGroup={ws.drift.setGroup}
      onSelectSeq={ws.selectSeq}
    />
  )
}
