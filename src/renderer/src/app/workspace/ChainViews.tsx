// The main area's views of an opened chain: the filter bar, the timeline with its brush, the rate
// and provider-share charts, and the entries table. What they read comes through the workspace's
// chain-bound API, so a late answer for another chain never reaches them.
import { useCallback, useMemo } from 'react'
import { EntriesTable } from '../../components/EntriesTable'
import { ErrorBoundary } from '../../components/ErrorBoundary'
import { FilterBar } from '../../components/FilterBar'
import { FindBar } from '../../components/FindBar'
import { ProviderShareChart } from '../../components/ProviderShareChart'
import { RateChart } from '../../components/RateChart'
import { TimelineChart } from '../../components/TimelineChart'
import { TimeRangeBar } from '../../components/TimeRangeBar'
import {
  describeView,
  entryFilter,
  listingKey,
  rangeTimelineRequest,
  timelineRequest,
} from '../../lib/filter-state'
import { isoOfNs } from '../../lib/format'
import { recoveredMarks } from '../../lib/recovered'
import { useStore } from '../../lib/stores/store'
import { useHalves, useRotations, useTimeline } from '../use-chain-data'
import { useReplayMarks } from '../use-replay-marks'
import { useWorkspace, useWorkspaceStore } from './context'
import { useGapRowsModel } from './Gaps'
import type { Flags } from './use-flags'

const TIMELINE_BUCKETS = 200
const CHART_BUCKETS = 60

export function ChainViews({ flags }: { flags: Flags }) {
  const ws = useWorkspaceStore()
  const overview = useWorkspace((s) => s.overview)
  const view = useWorkspace((s) => s.view)
  const verdict = useWorkspace((s) => s.verdict)
  const integrity = useWorkspace((s) => s.integrity)
  const flagVersion = useWorkspace((s) => s.flagVersion)
  const selected = useWorkspace((s) => s.selected)
  const recoveredRows = useStore(ws.recovered, (s) => s.rows)
  const recovered = useMemo(() => recoveredMarks(recoveredRows), [recoveredRows])
  const hasKey = useWorkspace((s) => s.keys.length > 0)
  const filter = useMemo(() => entryFilter(view), [view])

  // Flagged-only timelines are asked again when the findings behind them change.
  const stage = `${overview.pending ? 'pending' : 'final'}${view.flaggedOnly ? `:${flagVersion}` : ''}`
  const fullRequest = timelineRequest(view, TIMELINE_BUCKETS)
  const full = useTimeline(ws.api, fullRequest, stage)
  // The replay marks follow the timeline's filters (its request without the bucket count).
  const { buckets: _buckets, ...timelineFilter } = fullRequest
  const replays = useReplayMarks(
    ws.api,
    useWorkspace((s) => s.checks),
    timelineFilter,
    stage,
  )
  const ranged = useTimeline(ws.api, rangeTimelineRequest(view, CHART_BUCKETS), stage)
  const halves = useHalves(ws.api, integrity, overview.entries)
  const rotations = useRotations(ws.api, verdict, integrity)
  const providers = useMemo(() => overview.providers.map((p) => p.name), [overview])
  const searchNames = useCallback(
    (field: 'provider' | 'model', query: string) => ws.api.listNames({ field, query }),
    [ws.api],
  )
  const wholeNames = useCallback(
    (field: 'provider' | 'model', query: string, offset: number) =>
      ws.api.listNames({ field, query, offset, limit: 1, whole: true }),
    [ws.api],
  )

  const rangeLabel = view.range ? { from: isoOfNs(view.range.from_ns), to: isoOfNs(view.range.to_ns) } : null

  return (
    <>
      <FilterBar
        overview={overview}
        view={view}
        dispatch={ws.dispatchView}
        flaggedCount={flags.flaggedTotal}
        rangeLabel={rangeLabel}
        searchNames={searchNames}
        wholeNames={wholeNames}
      />
      <FindBar find={ws.find} filter={filter} sort={view.sort} hasKey={hasKey} />
      <ErrorBoundary where="timeline">
        <TimelineChart
          timeline={full.timeline}
          error={full.error}
          marks={flags.marks}
          range={view.range}
          onRange={(r) => ws.dispatchView({ type: 'range', value: r })}
          selected={selected}
          rotations={rotations}
          onSelectSeq={ws.select}
          recovered={recovered}
          onSelectRecovered={ws.showRecovered}
          replays={replays}
        />
      </ErrorBoundary>
      <TimeRangeBar
        chain={{ first_ns: overview.first_timestamp_ns, last_ns: overview.last_timestamp_ns }}
        range={view.range}
        onRange={(r) => ws.dispatchView({ type: 'range', value: r })}
      />
      <div className="charts">
        <ErrorBoundary where="rate chart">
          <RateChart
            timeline={ranged.timeline}
            error={ranged.error}
            halves={halves}
            rateAnomalies={integrity?.report.rate_anomalies ?? []}
          />
        </ErrorBoundary>
        <ErrorBoundary where="provider chart">
          <ProviderShareChart
            timeline={ranged.timeline}
            error={ranged.error}
            providers={providers}
            halves={halves}
            shift={integrity?.report.provider_shift ?? null}
          />
        </ErrorBoundary>
      </div>
    </>
  )
}

/** The entries table of the chain, beside the detail pane. */
export function EntriesView({ flags }: { flags: Flags }) {
  const ws = useWorkspaceStore()
  const view = useWorkspace((s) => s.view)
  const flagVersion = useWorkspace((s) => s.flagVersion)
  const selectedSeq = useWorkspace((s) => s.selected?.seq ?? null)
  const filter = useMemo(() => entryFilter(view), [view])
  const gapRows = useGapRowsModel(view)
  return (
    <ErrorBoundary where="entries table">
      <EntriesTable
        listingKey={`${listingKey(view)}|${view.flaggedOnly ? flagVersion : 0}`}
        filter={filter}
        sort={view.sort}
        onSortBy={(column) => ws.dispatchView({ type: 'sortBy', column })}
        onFilterBy={(f, value) => ws.dispatchView({ type: f, value })}
        onNotify={ws.notify}
        selectedSeq={selectedSeq}
        onSelect={ws.selectRow}
        onSelectSeq={ws.selectSeq}
        isFlagged={flags.isFlagged}
        replayStatus={flags.replayStatus}
        onReplayDrop={(seq, f) => void ws.replayFile(seq, f)}
        description={describeView(view)}
        gapRows={gapRows}
      />
    </ErrorBoundary>
  )
}
