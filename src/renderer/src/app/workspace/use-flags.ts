// Which rows are flagged and why (verify findings — the keyed verdict's, else the keyless check's —
// and integrity anomalies), and their replay checks: what the table, the timeline and the entry
// panel mark.
import { useCallback, useMemo } from 'react'
import type { ReplayCheck } from '../../../../shared/replay-types'
import { useStore } from '../../lib/stores/store'
import { flagReasons, useMarks } from '../use-chain-data'
import { useWorkspace, useWorkspaceStore } from './context'

export function useFlags() {
  const ws = useWorkspaceStore()
  const keyed = useWorkspace((s) => s.verdict)
  const keyless = useStore(ws.keyless, (s) => s.verdict)
  // The keyed verdict when there is one, else the keyless check's (as the engine flags rows).
  const verdict = keyed ?? keyless
  const integrity = useWorkspace((s) => s.integrity)
  const checks = useWorkspace((s) => s.checks)
  const { marks, total } = useMarks(ws.api, verdict, integrity)

  const flagMap = useMemo(() => new Map(marks.map((m) => [m.seq, m.kinds.join('; ')])), [marks])
  const isFlagged = useCallback(
    (seq: number): string | null => {
      const m = flagMap.get(seq)
      if (m) return m
      const why = flagReasons(seq, verdict, integrity)
      return why ? why.kinds.join('; ') : null
    },
    [flagMap, verdict, integrity],
  )
  const replayBySeq = useMemo(() => {
    const m = new Map<number, ReplayCheck>()
    for (const c of checks) m.set(c.seq, c)
    return m
  }, [checks])
  const replayStatus = useCallback(
    (seq: number): 'match' | 'mismatch' | null => {
      const c = replayBySeq.get(seq)
      return c ? (c.result.match ? 'match' : 'mismatch') : null
    },
    [replayBySeq],
  )
  return { marks, flaggedTotal: total, isFlagged, replayBySeq, replayStatus }
}

export type Flags = ReturnType<typeof useFlags>
