// The timeline's replay marks (issue 37): the session's checks placed at their entries' timestamps,
// asked of the engine once per seq and filter (seqTimes reads the index; a live seq's timestamp does
// not change while the chain is held, and the API is bound to the chain). The marks follow the
// timeline's own filters (issue 35): the engine applies them with the timeline's row test, so a mark
// is drawn only where the filtered timeline counts its row — never on a provider or model filtered out.
import { useEffect, useMemo, useRef, useState } from 'react'
import type { TimelineFilter } from '../../../shared/chain-types'
import type { ApiClient } from '../../../shared/contract'
import type { ReplayCheck } from '../../../shared/replay-types'
import { replayMarks, type ReplayMark } from '../lib/replay-marks'

const CHUNK = 10_000

interface Known {
  api: ApiClient
  /** The filter (and the flagged rows' version) the times were asked under. */
  key: string
  times: Map<number, string | null>
}

/**
 * `filter`: the timeline's (provider, model, flagged only, search); `stage` changes when the rows it
 * selects may have (the flagged rows after a verdict), as the timeline's own request is made again.
 */
export function useReplayMarks(
  api: ApiClient,
  checks: readonly ReplayCheck[],
  filter: TimelineFilter,
  stage: string,
): ReplayMark[] {
  const key = `${JSON.stringify(filter)}|${stage}`
  const known = useRef<Known>({ api, key, times: new Map() })
  const [version, setVersion] = useState(0)
  // Another chain or filter: nothing known yet (no mark shown under a filter it was not asked with).
  if (known.current.api !== api || known.current.key !== key) known.current = { api, key, times: new Map() }

  useEffect(() => {
    const mine = known.current
    const want = [...new Set(checks.map((c) => c.seq))].filter((s) => !mine.times.has(s))
    if (want.length === 0) return
    let live = true
    void (async () => {
      for (let i = 0; i < want.length; i += CHUNK) {
        const part = want.slice(i, i + CHUNK)
        let got
        try {
          got = await api.seqTimes(Object.keys(filter).length > 0 ? { seqs: part, filter } : { seqs: part })
        } catch {
          return // not placed: the table and the replay panel still list them
        }
        if (!live || known.current !== mine) return
        // A seq the engine does not give is not live or filtered out: no mark (never asked again).
        for (const s of part) mine.times.set(s, null)
        for (const t of got) mine.times.set(t.seq, t.timestamp_ns)
        setVersion((v) => v + 1)
      }
    })()
    return () => {
      live = false
    }
    // `key` stands for `filter` (a new object each render with the same content).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, checks, key])

  // eslint-disable-next-line react-hooks/exhaustive-deps -- `version` says the known times grew
  return useMemo(() => replayMarks(checks, known.current.times), [checks, version, api, key])
}
