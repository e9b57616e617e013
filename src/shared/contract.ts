// The one API contract between the engine (Electron main / `bijotel serve`) and the renderer.
// Every call is `name(request) => response`. The preload exposes it over IPC, the web client over
// HTTP (`POST /api/call/<name>`), and the main side implements it once, in src/main/handlers.
// Adding a call: add it here and to API_CALLS, write its handler, use it in the UI.
// The one-way events from main to the renderer are typed beside these calls, in app-events.ts.
import type {
  ChainOverview,
  EntryDetail,
  EntryFilter,
  EntryPage,
  EntrySort,
  NamePage,
  SeqGaps,
  TimelineFilter,
  SeqTime,
  Timeline,
  TimelineRequest,
} from './chain-types'
import type { ApiErrorCode } from './api-errors'
import type { PriorInfo, ReportCheckResult, ReportFormat, SigningKeyInfo } from './custody-types'
import type { IntegrityOptions, IntegrityRun } from './integrity-types'
import type { JobStatus } from './job-types'
import type { RecoveryResult } from './recovery-types'
import type { ReplayBatchRequest, ReplayBatchResult, ReplayCheck, ReplayCheckRequest } from './replay-types'
import type { AuditReport } from './report-types'
import type { ChainState } from './app-events'
import type { KeyInfo, RowCheck, VerifyRangeOptions, VerifyVerdict } from './verify-types'
import type { DriftSeries, DriftSeriesRequest } from './drift-types'
import type {
  SearchRequest,
  SearchResult,
  TimeRange,
  TimeRangeRequest,
  ViewExport,
  ViewExportRequest,
} from './tools-types'

export interface AppInfo {
  name: string
  version: string
  transport: 'ipc' | 'http'
  /** Whether this transport may open arbitrary paths (Electron: yes; web: only under --open-root). */
  can_open_paths: boolean
  /** Whether the native dialogs exist (Electron only). */
  has_dialogs: boolean
  /** A path given on the command line to open first, if any. */
  initial_path: string | null
  /** The row to show first in that chain (`--seq N` on the command line), if any. */
  initial_seq?: number | null
  sample_path: string | null
  recent_paths: string[]
  open_roots: string[]
}

export interface SecretInput {
  /** `hex` as Python BIJOTEL (whitespace between byte pairs ignored); `text` = raw UTF-8 bytes (Go fallback). */
  encoding: 'hex' | 'text'
  value: string
}

export interface ApiContract {
  appInfo: (req: void) => AppInfo
  /** `focus_seq`: the row to show first (a deep link, `--seq N`); currentChain hands it on. */
  openChain: (req: { path: string; focus_seq?: number }) => ChainOverview
  /** Native open dialog (Electron); resolves null when cancelled. */
  pickAndOpenChain: (req: void) => ChainOverview | null
  closeChain: (req: void) => null
  overview: (req: void) => ChainOverview | null
  /** The chain the engine holds (identity and overview, read together), or null when none is open. */
  currentChain: (req: void) => ChainState | null
  listEntries: (req: { offset: number; limit: number; sort?: EntrySort; filter?: EntryFilter }) => EntryPage
  /** Position of a seq in a listing, so the table can scroll to it. */
  locateEntry: (req: { seq: number; sort?: EntrySort; filter?: EntryFilter }) => { index: number | null }
  getEntry: (req: { seq: number }) => EntryDetail
  /**
   * Where seqs are absent between live rows (the table's gap rows, issue 35), in pages: the gaps
   * whose `index` is at least `from_index` (default 0), at most MAX_SEQ_GAPS of them; `truncated`
   * says more follow (ask again from the last one's index + 1).
   */
  seqGaps: (req: { from_index?: number } | void) => SeqGaps
  /**
   * The providers or models the chain names (the overview lists only the most frequent
   * OVERVIEW_NAMES): those holding `query` (case-insensitive; all when absent), in the overview's
   * order, from the `offset`-th, at most `limit` (≤ MAX_NAMES_PAGE, the default). Names longer than
   * LIST_TEXT_UNITS come clipped (`clipped`), as in the overview; `whole: true` (with `limit: 1`)
   * gives the one name whole.
   */
  listNames: (req: {
    field: 'provider' | 'model'
    query?: string
    offset?: number
    limit?: number
    whole?: boolean
  }) => NamePage
  /**
   * The timestamps of live seqs (at most 10,000; absent seqs left out), from the index. With the
   * timeline's filters (`filter`), only the seqs its points count (the timeline's replay marks).
   */
  seqTimes: (req: { seqs: number[]; filter?: TimelineFilter }) => SeqTime[]
  timeline: (req: TimelineRequest) => Timeline
  /** Keys live in main-process memory only; what comes back never contains them. */
  /**
   * `keep`: indexes of held keys that stay (first, in that order); the new secrets follow. Without
   * it the set is replaced. Keys belong to the chain: opening another chain clears them.
   */
  setSecrets: (req: { secrets: SecretInput[]; keep?: number[] }) => KeyInfo[]
  listKeys: (req: void) => KeyInfo[]
  /** The verdict includes what the files remember (`recovered`, and the findings it proves). */
  /** `segments`: archive segment paths (recovered rows found in them are archived, never findings). */
  startVerify: (req: { range?: VerifyRangeOptions; segments?: string[] }) => JobStatus<VerifyVerdict>
  /** Every deleted or earlier version of a row the files still hold, proven with the keys set (if any). */
  startRecover: (req: void) => JobStatus<RecoveryResult>
  lastVerdict: (req: void) => VerifyVerdict | null
  checkRow: (req: { seq: number }) => RowCheck
  runIntegrity: (req: IntegrityOptions) => IntegrityRun
  startIntegrity: (req: IntegrityOptions) => JobStatus<IntegrityRun>
  jobStatus: (req: { id: string }) => JobStatus
  cancelJob: (req: { id: string }) => JobStatus
  checkReplay: (req: ReplayCheckRequest) => ReplayCheck
  listReplayChecks: (req: void) => ReplayCheck[]
  /** Many replays at once (JSON Lines; files as output_base64): every line's verdict and the summary. */
  checkReplayBatch: (req: ReplayBatchRequest) => ReplayBatchResult
  buildReport: (req: { integrity?: IntegrityOptions }) => AuditReport
  /**
   * The keyless verify (`verify --keyless`) the engine starts whenever a chain opens: its job (poll
   * with jobStatus), whose result is a verdict with `hmac_checked: false`; null when no chain is open.
   */
  keylessVerdict: (req: void) => JobStatus<VerifyVerdict> | null
  /** Search the chain (streamed, cancellable job); the result's search_id filters table and timeline. */
  startSearch: (req: SearchRequest) => JobStatus<SearchResult>
  /** A typed time range or a preset as inclusive ns bounds for listEntries/timeline filters. */
  resolveTimeRange: (req: TimeRangeRequest) => TimeRange
  /** The rows in view as JSONL, CSV or a reference export file (web mode: download the content). */
  exportView: (req: ViewExportRequest) => ViewExport
  /** The same written through the native save dialog (Electron); the path written, or null. */
  saveViewExport: (req: ViewExportRequest) => { path: string | null; rows: number }
  /** F12 payload drift: each dimension over time per provider/model, anomalies marked (a job). */
  startDriftSeries: (req: DriftSeriesRequest) => JobStatus<DriftSeries>
  /**
   * Native save dialog + write (Electron); resolves the path written, or null when cancelled.
   * `format`: json (default), html (the self-contained page) or pdf (that page printed, Electron only).
   */
  saveReport: (req: { integrity?: IntegrityOptions; format?: ReportFormat }) => { path: string | null }
  /** The report as the self-contained HTML page (web mode downloads it). */
  buildReportHtml: (req: { integrity?: IntegrityOptions }) => { html: string; file_name: string }
  /**
   * The key reports are signed with is the auditor's (issue 34): chosen in the desktop dialog
   * (pickSigningKey) or given to `serve --sign-key`. Here only `path: null` (desktop) forgets it; a
   * path string is refused, and over HTTP the call is always refused (403).
   */
  setSigningKey: (req: { path: string | null }) => SigningKeyInfo | null
  /** Native open dialog for the signing key (Electron); cancelled, the key held before (or null). */
  pickSigningKey: (req: void) => SigningKeyInfo | null
  signingKey: (req: void) => SigningKeyInfo | null
  /**
   * "Compare with an earlier report…": a report (JSON or HTML) or verdict, as text or by path, is
   * the prior of the next verify (truncated / rewritten / deleted findings). `clear: true` drops it.
   */
  setPrior: (req: { text?: string; path?: string; clear?: boolean }) => PriorInfo | null
  /** "Check a report…": the report (text or path) checked again against the open chain, field by field. */
  checkReport: (req: { text?: string; path?: string; public_key_pem?: string }) => ReportCheckResult
}

export type ApiName = keyof ApiContract
export type ApiRequest<N extends ApiName> = Parameters<ApiContract[N]>[0]
export type ApiResponse<N extends ApiName> = ReturnType<ApiContract[N]>

/** The client side of the contract: every call returns a promise. */
export type ApiClient = { [N in ApiName]: (req: ApiRequest<N>) => Promise<ApiResponse<N>> }

/** Runtime list of call names (the preload and the HTTP client are generated from it). */
export const API_CALLS = [
  'appInfo',
  'openChain',
  'pickAndOpenChain',
  'closeChain',
  'overview',
  'currentChain',
  'listEntries',
  'locateEntry',
  'getEntry',
  'seqGaps',
  'listNames',
  'seqTimes',
  'timeline',
  'setSecrets',
  'listKeys',
  'startVerify',
  'startRecover',
  'lastVerdict',
  'checkRow',
  'runIntegrity',
  'startIntegrity',
  'jobStatus',
  'cancelJob',
  'checkReplay',
  'listReplayChecks',
  'checkReplayBatch',
  'buildReport',
  'saveReport',
  'keylessVerdict',
  'startSearch',
  'resolveTimeRange',
  'exportView',
  'saveViewExport',
  'startDriftSeries',
  'buildReportHtml',
  'setSigningKey',
  'pickSigningKey',
  'signingKey',
  'setPrior',
  'checkReport',
] as const satisfies readonly ApiName[]

// Compile-time proof that API_CALLS names every call of the contract, no more, no less.
type Missing = Exclude<ApiName, (typeof API_CALLS)[number]>
const _exhaustive: Missing extends never ? true : Missing = true
void _exhaustive

export const IPC_CHANNEL = 'bijotel:api'

/** Errors cross both transports as `{ error, code }`; `code` maps to an HTTP status on the web side. */
export interface ApiErrorBody {
  error: string
  /** One of API_ERROR_CODES (./api-errors). */
  code: ApiErrorCode
}
