// The workspace's seqs no live row holds (issue 35): the gap rows of the entries table (listed by
// seq, unfiltered) and the entry panel of a missing seq, from the chain's gap store, its verdict (the
// keyed one, else the keyless check's) and its recovered rows.
import { useCallback, useMemo } from 'react'
import type { ViewState } from '../../lib/filter-state'
import { entryFilter } from '../../lib/filter-state'
import { gapKnowledge, type GapKnowledge } from '../../lib/gap-facts'
import { edgeSpans, type GapSpan } from '../../lib/gap-rows'
import { useStore } from '../../lib/stores/store'
import { GapRow, type GapRowPlace, type GapRowsModel } from '../../components/GapRow'
import { MissingSeqDetail } from '../../components/MissingSeqDetail'
import { useWorkspace, useWorkspaceStore } from './context'

/** What is known of a span, following the verdicts and the recovered rows. */
function useKnowledge(): (span: GapSpan) => GapKnowledge {
  const ws = useWorkspaceStore()
  const keyed = useWorkspace((s) => s.verdict)
  const keyless = useStore(ws.keyless, (s) => s.verdict)
  const rows = useStore(ws.recovered, (s) => s.rows)
  const summary = useStore(ws.recovered, (s) => s.summary)
  return useCallback(
    (span: GapSpan) => gapKnowledge(span, keyed ?? keyless, rows, summary ? summary.searched : null),
    [keyed, keyless, rows, summary],
  )
}

/** The entries table's gap rows, when the listing is by seq and nothing filters rows out. */
export function useGapRowsModel(view: ViewState): GapRowsModel | null {
  const ws = useWorkspaceStore()
  const gaps = useStore(ws.gaps, (s) => s.gaps)
  const overview = useWorkspace((s) => s.overview)
  const keyed = useWorkspace((s) => s.verdict)
  const keyless = useStore(ws.keyless, (s) => s.verdict)
  const rows = useStore(ws.recovered, (s) => s.rows)
  const know = useKnowledge()
  const bySeq = view.sort === 'seq_asc' || view.sort === 'seq_desc'
  const unfiltered = entryFilter(view) === undefined
  return useMemo(() => {
    if (!gaps || !bySeq || !unfiltered) return null
    const edges = edgeSpans(overview.first_seq, overview.last_seq, keyed ?? keyless, rows)
    return {
      gaps: gaps.gaps,
      edges,
      onOpen: (span) => ws.select(span.from),
      render: (span: GapSpan, place: GapRowPlace) => (
        <GapRow
          key={place.key}
          span={span}
          knowledge={know(span)}
          place={place}
          onSelect={() => ws.select(span.from)}
          onShowRecovered={ws.showRecovered}
        />
      ),
    }
  }, [gaps, bySeq, unfiltered, overview, keyed, keyless, rows, know, ws])
}

/** The entry panel of a seq no live row holds; null when the seq is live (or not known yet). */
export function MissingSeq({ seq }: { seq: number }) {
  const ws = useWorkspaceStore()
  // Followed so the panel changes when any of them does (missingSpan reads them from the stores).
  useStore(ws.gaps, (s) => s.gaps)
  useWorkspace((s) => s.overview)
  useWorkspace((s) => s.verdict)
  useStore(ws.keyless, (s) => s.verdict)
  useStore(ws.recovered, (s) => s.rows)
  const know = useKnowledge()
  const span = ws.missingSpan(seq)
  if (!span) return null
  return (
    <MissingSeqDetail
      seq={seq}
      span={span}
      knowledge={know(span)}
      onSelectSeq={ws.selectSeq}
      onShowRecovered={ws.showRecovered}
    />
  )
}

/** Whether the panel of `seq` is MissingSeq's (re-evaluated as the gaps and verdicts arrive). */
export function useIsMissing(seq: number | null): boolean {
  const ws = useWorkspaceStore()
  useStore(ws.gaps, (s) => s.gaps)
  useWorkspace((s) => s.overview)
  useWorkspace((s) => s.verdict)
  useStore(ws.keyless, (s) => s.verdict)
  useStore(ws.recovered, (s) => s.rows)
  return seq !== null && ws.missingSpan(seq) !== null
}
