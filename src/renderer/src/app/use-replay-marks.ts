// The timeline's replay marks (issue 37): the session's checks placed at their entries' timestamps,
// asked of the engine once per seq (seqTimes reads the index; a live seq's timestamp does not change
// while the chain is held, and the API is bound to the chain).
import { useEffect, useMemo, useRef, useState } from 'react'
import type { ApiClient } from '../../../shared/contract'
import type { ReplayCheck } from '../../../shared/replay-types'
import { replayMarks, type ReplayMark } from '../lib/replay-marks'

const CHUNK = 10_000

export function useReplayMarks(api: ApiClient, checks: readonly ReplayCheck[]): ReplayMark[] {
  const known = useRef<{ api: ApiClient; times: Map<number, string | null> }>({ api, times: new Map() })
  const [version, setVersion] = useState(0)
  if (known.current.api !== api) known.current = { api, times: new Map() }

  useEffect(() => {
    const { times } = known.current
    const want = [...new Set(checks.map((c) => c.seq))].filter((s) => !times.has(s))
    if (want.length === 0) return
    let live = true
    void (async () => {
      for (let i = 0; i < want.length; i += CHUNK) {
        const part = want.slice(i, i + CHUNK)
        let got
        try {
          got = await api.seqTimes({ seqs: part })
        } catch {
          return // not placed: the table and the replay panel still list them
        }
        if (!live || known.current.api !== api) return
        // A seq the engine does not list is not live: known to have no time (never asked again).
        for (const s of part) times.set(s, null)
        for (const t of got) times.set(t.seq, t.timestamp_ns)
        setVersion((v) => v + 1)
      }
    })()
    return () => {
      live = false
    }
  }, [api, checks])

  // eslint-disable-next-line react-hooks/exhaustive-deps -- `version` says the known times grew
  return useMemo(() => replayMarks(checks, known.current.times), [checks, version, api])
}
