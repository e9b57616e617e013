// Everything about one opened chain. Keyed by the open count in App, so opening another chain
// starts from a clean state. Its commands (verify, export, copy, replay drop) are exposed to App
// through a handle, for menus, shortcuts and window drops.
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useMemo,
  useReducer,
  useState,
  type DragEvent,
  type ReactNode,
  type Ref,
} from 'react'
import type { ChainOverview, EntryDetail as EntryDetailType, EntrySummary } from '../../../shared/chain-types'
import type { AppInfo, SecretInput } from '../../../shared/contract'
import type { IntegrityOptions, IntegrityRun } from '../../../shared/integrity-types'
import type { ReplayCheck, ReplayCheckRequest, ReplayTextMode } from '../../../shared/replay-types'
import type { KeyInfo, VerifyRangeOptions, VerifyVerdict } from '../../../shared/verify-types'
import { EntriesTable } from '../components/EntriesTable'
import { EntryDetail } from '../components/EntryDetail'
import { ErrorBoundary } from '../components/ErrorBoundary'
import { EvidencePanel } from '../components/EvidencePanel'
import { FilterBar } from '../components/FilterBar'
import { IntegrityPanel } from '../components/IntegrityPanel'
import { ProviderShareChart } from '../components/ProviderShareChart'
import { RateChart } from '../components/RateChart'
import { ReplayChecker } from '../components/ReplayChecker'
import { ReplayList } from '../components/ReplayList'
import { ReplayResultView } from '../components/ReplayResultView'
import { SecretsForm } from '../components/SecretsForm'
import { Section } from '../components/Section'
import { TimelineChart } from '../components/TimelineChart'
import { VerifyPanel } from '../components/VerifyPanel'
import { copyText, downloadJson } from '../lib/download'
import {
  describeView,
  entryFilter,
  initialView,
  listingKey,
  rangeTimelineRequest,
  timelineRequest,
  viewReducer,
} from '../lib/filter-state'
import { errorMessage, isoOfNs, reportFileName } from '../lib/format'
import { looksLikeChain, readFileBase64 } from '../lib/replay-format'
import { useApi } from './api-context'
import { flagReasons, useHalves, useMarks, useRotations, useTimeline } from './use-chain-data'
import { useJobRunner } from './use-job'
import type { Notify } from './use-notice'

export interface WorkspaceHandle {
  verify: () => void
  exportReport: () => void
  copyReport: () => void
  dropReplay: (file: File) => void
  step: (dir: -1 | 1) => void
  resetZoom: () => void
}

interface Props {
  info: AppInfo
  overview: ChainOverview
  notify: Notify
  /** The header's open controls, rendered by App. */
  header: ReactNode
  /** A message line under the header (e.g. why a file could not be opened). */
  banner?: ReactNode
  ref?: Ref<WorkspaceHandle>
}

const TIMELINE_BUCKETS = 200
const CHART_BUCKETS = 60
const MAX_REPLAY_BYTES = 64 * 1024 * 1024
const DEFAULT_INTEGRITY: IntegrityOptions = { window: 100 }

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files')
}

export function Workspace({ info, overview, notify, header, banner, ref }: Props) {
  const api = useApi()
  const [view, dispatch] = useReducer(viewReducer, initialView)
  const [selected, setSelected] = useState<{ seq: number; ns: string | null } | null>(null)
  const [neighbours, setNeighbours] = useState<{ prev: number | null; next: number | null }>({
    prev: null,
    next: null,
  })
  const [keys, setKeys] = useState<KeyInfo[]>([])
  const [keysError, setKeysError] = useState<string | null>(null)
  const [verdict, setVerdict] = useState<VerifyVerdict | null>(null)
  const verifyJob = useJobRunner<VerifyVerdict>()
  const [integrity, setIntegrity] = useState<IntegrityRun | null>(null)
  const [integrityOpts, setIntegrityOpts] = useState<IntegrityOptions>(DEFAULT_INTEGRITY)
  const [integrityBusy, setIntegrityBusy] = useState(false)
  const [integrityError, setIntegrityError] = useState<string | null>(null)
  const integrityJob = useJobRunner<IntegrityRun>()
  const [checks, setChecks] = useState<ReplayCheck[]>([])
  const [replayMode, setReplayMode] = useState<ReplayTextMode>('python')
  const [replayBusy, setReplayBusy] = useState(false)
  const [replayError, setReplayError] = useState<string | null>(null)
  const [checkVersion, setCheckVersion] = useState(0)
  const [flagVersion, setFlagVersion] = useState(0)
  const [detailTab, setDetailTab] = useState<'entry' | 'replays'>('entry')
  const [detailDrop, setDetailDrop] = useState(false)
  const [exporting, setExporting] = useState(false)

  // Flagged-only timelines are asked again when the findings behind them change.
  const stage = `${overview.pending ? 'pending' : 'final'}${view.flaggedOnly ? `:${flagVersion}` : ''}`
  const full = useTimeline(api, timelineRequest(view, TIMELINE_BUCKETS), stage)
  const ranged = useTimeline(api, rangeTimelineRequest(view, CHART_BUCKETS), stage)
  const { marks, total: flaggedTotal } = useMarks(api, verdict, integrity)
  const halves = useHalves(api, integrity, overview.entries)
  const rotations = useRotations(api, verdict, integrity)
  const providers = useMemo(() => overview.providers.map((p) => p.name), [overview])

  const runIntegrity = useCallback(
    async (opts: IntegrityOptions) => {
      setIntegrityError(null)
      if (opts.all) {
        const r = await integrityJob.run(() => api.startIntegrity(opts))
        if (r) {
          setIntegrity(r)
          setIntegrityOpts(opts)
          setFlagVersion((v) => v + 1)
        }
        return
      }
      setIntegrityBusy(true)
      try {
        const r = await api.runIntegrity(opts)
        setIntegrity(r)
        setIntegrityOpts(opts)
        setFlagVersion((v) => v + 1)
      } catch (e) {
        setIntegrityError(errorMessage(e))
      } finally {
        setIntegrityBusy(false)
      }
    },
    [api, integrityJob],
  )

  // What the engine already holds for this chain, and a first integrity run.
  useEffect(() => {
    let live = true
    api.listKeys().then(
      (k) => live && setKeys(k),
      () => undefined,
    )
    api.lastVerdict().then(
      (v) => live && setVerdict(v),
      () => undefined,
    )
    api.listReplayChecks().then(
      (c) => live && setChecks(c),
      () => undefined,
    )
    void runIntegrity(DEFAULT_INTEGRITY)
    return () => {
      live = false
    }
    // Once per opened chain.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api])

  const select = useCallback((seq: number, ns: string | null = null) => {
    setSelected((s) =>
      s && s.seq === seq && (ns === null || s.ns === ns)
        ? s
        : { seq, ns: ns ?? (s?.seq === seq ? s.ns : null) },
    )
    setDetailTab('entry')
  }, [])
  const onDetailLoaded = useCallback((e: EntryDetailType) => {
    setNeighbours({ prev: e.prev_seq, next: e.next_seq })
    setSelected((s) => (s && s.seq === e.seq && s.ns === null ? { ...s, ns: e.timestamp_ns } : s))
  }, [])
  const selectRow = useCallback((r: EntrySummary) => select(r.seq, r.timestamp_ns), [select])
  const selectSeq = useCallback((seq: number) => select(seq), [select])

  const submitSecrets = async (secrets: SecretInput[]): Promise<void> => {
    setKeysError(null)
    try {
      const k = await api.setSecrets({ secrets })
      setKeys(k)
      setVerdict(null)
      setCheckVersion((v) => v + 1)
      setFlagVersion((v) => v + 1)
    } catch (e) {
      setKeysError(errorMessage(e))
    }
  }

  const verify = useCallback(
    async (range?: VerifyRangeOptions) => {
      if (verifyJob.running) return
      const v = await verifyJob.run(() => api.startVerify(range ? { range } : {}))
      if (v) {
        setVerdict(v)
        setCheckVersion((x) => x + 1)
        setFlagVersion((x) => x + 1)
      }
    },
    [api, verifyJob],
  )

  const runReplay = useCallback(
    async (req: ReplayCheckRequest) => {
      setReplayBusy(true)
      setReplayError(null)
      try {
        const c = await api.checkReplay(req)
        setChecks((cs) => [...cs, c])
        setDetailTab('entry')
      } catch (e) {
        setReplayError(errorMessage(e))
      } finally {
        setReplayBusy(false)
      }
    },
    [api],
  )

  const replayFile = useCallback(
    async (seq: number, file: File) => {
      if (file.size > MAX_REPLAY_BYTES) {
        setReplayError(`${file.name} is ${file.size} bytes: replay files above 64 MiB are not read`)
        return
      }
      try {
        const b64 = await readFileBase64(file)
        await runReplay({ seq, file_base64: b64, file_name: file.name, mode: replayMode })
      } catch (e) {
        setReplayError(errorMessage(e))
      }
    },
    [replayMode, runReplay],
  )

  const reportRequest = useMemo(() => ({ integrity: integrityOpts }), [integrityOpts])

  const exportReport = useCallback(async () => {
    setExporting(true)
    try {
      if (info.has_dialogs) {
        const { path } = await api.saveReport(reportRequest)
        notify(path ? `Report saved to ${path}` : 'Export cancelled')
      } else {
        const report = await api.buildReport(reportRequest)
        const name = reportFileName(report.generated_at)
        downloadJson(name, report)
        notify(`Report downloaded as ${name}`)
      }
    } catch (e) {
      notify(`Export failed: ${errorMessage(e)}`, 'error')
    } finally {
      setExporting(false)
    }
  }, [api, info.has_dialogs, notify, reportRequest])

  const copyReport = useCallback(async () => {
    setExporting(true)
    try {
      const report = await api.buildReport(reportRequest)
      await copyText(JSON.stringify(report, null, 2))
      notify('Report copied to the clipboard as JSON')
    } catch (e) {
      notify(`Copy failed: ${errorMessage(e)}`, 'error')
    } finally {
      setExporting(false)
    }
  }, [api, notify, reportRequest])

  useImperativeHandle(
    ref,
    () => ({
      verify: () => void verify(),
      exportReport: () => void exportReport(),
      copyReport: () => void copyReport(),
      dropReplay: (file: File) => {
        if (!selected) {
          notify(`Select an entry first, or drop ${file.name} on a row`, 'error')
          return
        }
        void replayFile(selected.seq, file)
      },
      step: (dir: -1 | 1) => {
        const s = dir < 0 ? neighbours.prev : neighbours.next
        if (s !== null) select(s)
      },
      resetZoom: () => dispatch({ type: 'range', value: null }),
    }),
    [verify, exportReport, copyReport, selected, replayFile, neighbours, select, notify],
  )

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

  const lkey = `${listingKey(view)}|${view.flaggedOnly ? flagVersion : 0}`
  const rangeLabel = view.range ? { from: isoOfNs(view.range.from_ns), to: isoOfNs(view.range.to_ns) } : null
  const selectedCheck = selected ? (replayBySeq.get(selected.seq) ?? null) : null
  const file = overview.evidence.db.path.split(/[\\/]/).pop() ?? overview.evidence.db.path

  return (
    <div className="app" data-testid="workspace">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden>
            ◆
          </span>
          BIJOTEL Auditor
        </div>
        <div className="current-file" title={overview.evidence.db.path} data-testid="current-file">
          {file}
        </div>
        {header}
        <div className="grow" />
        <button
          type="button"
          className="btn"
          onClick={() => void verify()}
          disabled={verifyJob.running}
          title="Ctrl/⌘+Shift+V"
        >
          Verify
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => void exportReport()}
          disabled={exporting}
          data-testid="export-report"
          title="Ctrl/⌘+E"
        >
          {info.has_dialogs ? 'Save report…' : 'Export report'}
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => void copyReport()}
          disabled={exporting}
          data-testid="copy-report"
          title="Ctrl/⌘+Shift+E"
        >
          Copy as JSON
        </button>
      </header>
      {banner}
      <div className="layout">
        <aside className="sidebar">
          <ErrorBoundary where="evidence panel">
            <Section title="Evidence" testId="section-evidence">
              <EvidencePanel
                overview={overview}
                onPickProvider={(p) => dispatch({ type: 'provider', value: p })}
                onPickModel={(m) => dispatch({ type: 'model', value: m })}
              />
            </Section>
          </ErrorBoundary>
          <ErrorBoundary where="verification panel">
            <Section title="Keys & verification" testId="section-verify">
              <SecretsForm keys={keys} onSubmit={submitSecrets} />
              {keysError ? (
                <p className="error-line" role="alert" data-testid="secrets-error">
                  {keysError}
                </p>
              ) : null}
              <VerifyPanel
                keys={keys}
                verdict={verdict}
                status={verifyJob.status}
                error={verifyJob.error}
                onVerify={(r) => void verify(r)}
                onCancel={verifyJob.cancel}
                onSelectSeq={selectSeq}
              />
            </Section>
          </ErrorBoundary>
          <ErrorBoundary where="integrity panel">
            <Section title="Integrity monitor" testId="section-integrity">
              <IntegrityPanel
                run={integrity}
                options={integrityOpts}
                busy={integrityBusy || integrityJob.running}
                status={integrityJob.status}
                error={integrityError ?? integrityJob.error}
                onRun={(o) => void runIntegrity(o)}
                onCancel={integrityJob.cancel}
                onSelectSeq={selectSeq}
              />
            </Section>
          </ErrorBoundary>
        </aside>
        <main className="main">
          <FilterBar
            overview={overview}
            view={view}
            dispatch={dispatch}
            flaggedCount={flaggedTotal}
            rangeLabel={rangeLabel}
          />
          <ErrorBoundary where="timeline">
            <TimelineChart
              timeline={full.timeline}
              error={full.error}
              marks={marks}
              range={view.range}
              onRange={(r) => dispatch({ type: 'range', value: r })}
              selected={selected}
              rotations={rotations}
              onSelectSeq={select}
            />
          </ErrorBoundary>
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
          <div className="split">
            <ErrorBoundary where="entries table">
              <EntriesTable
                listingKey={lkey}
                filter={entryFilter(view)}
                sort={view.sort}
                onSortBy={(column) => dispatch({ type: 'sortBy', column })}
                selectedSeq={selected?.seq ?? null}
                onSelect={selectRow}
                onSelectSeq={selectSeq}
                isFlagged={isFlagged}
                replayStatus={replayStatus}
                onReplayDrop={(seq, f) => void replayFile(seq, f)}
                description={describeView(view)}
              />
            </ErrorBoundary>
            <div
              className={`detail-pane${detailDrop ? ' drop' : ''}`}
              data-testid="detail-pane"
              onDragOver={(e) => {
                if (!selected || !hasFiles(e)) return
                e.preventDefault()
                e.stopPropagation()
                setDetailDrop(true)
              }}
              onDragLeave={() => setDetailDrop(false)}
              onDrop={(e) => {
                setDetailDrop(false)
                const f = e.dataTransfer?.files?.[0]
                if (!selected || !f || looksLikeChain(f.name)) return
                e.preventDefault()
                e.stopPropagation()
                void replayFile(selected.seq, f)
              }}
            >
              <div className="tabs" role="tablist">
                <button
                  type="button"
                  role="tab"
                  aria-selected={detailTab === 'entry'}
                  className={detailTab === 'entry' ? 'on' : ''}
                  onClick={() => setDetailTab('entry')}
                >
                  Entry
                </button>
                <button
                  type="button"
                  role="tab"
                  aria-selected={detailTab === 'replays'}
                  className={detailTab === 'replays' ? 'on' : ''}
                  onClick={() => setDetailTab('replays')}
                  data-testid="tab-replays"
                >
                  Replay checks ({checks.length})
                </button>
              </div>
              <ErrorBoundary where="entry detail" resetKey={selected?.seq}>
                {detailTab === 'replays' ? (
                  <ReplayList checks={checks} onSelectSeq={selectSeq} />
                ) : selected ? (
                  <EntryDetail
                    seq={selected.seq}
                    checkVersion={checkVersion}
                    onSelectSeq={select}
                    flaggedBy={isFlagged(selected.seq)}
                    onLoaded={onDetailLoaded}
                  >
                    {selectedCheck ? <ReplayResultView check={selectedCheck} /> : null}
                    <ReplayChecker
                      seq={selected.seq}
                      hasReplay={true}
                      mode={replayMode}
                      onModeChange={setReplayMode}
                      busy={replayBusy}
                      error={replayError}
                      onCheckText={(text, prompt) =>
                        void runReplay({ seq: selected.seq, text, ...(prompt !== null ? { prompt } : {}) })
                      }
                      onPickFile={(f) => void replayFile(selected.seq, f)}
                    />
                  </EntryDetail>
                ) : (
                  <div className="detail empty muted" data-testid="no-selection">
                    Select a row (click, or ↑ ↓ and Enter), a finding, or a mark on the timeline.
                  </div>
                )}
              </ErrorBoundary>
            </div>
          </div>
        </main>
      </div>
    </div>
  )
}
